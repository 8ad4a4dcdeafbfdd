// What an import writes, decided before the first write: every id of the export mapped to the target's id, every
// link checked, every custom value type-checked. No I/O here; import.ts reads the target first and writes the plan.
// One planner per table, in dependency order (users, labels, fields, teams, projects, milestones, tasks, comments), each
// reading and adding to one explicit PlanState: the id map, the refusals, and what the earlier planners decided.
import { ValidationError } from "../../core/errors";
import { newId } from "../../ids";
import { type Definition, type RecordType, valueProblem } from "../../records/custom-fields";
import type { ExportDataDto, ExportDocumentDto } from "./schema";

type Data = ExportDataDto;

/** The target as the import finds it (import.ts reads it in one statement). */
export interface Target {
  workspaceId: string;
  callerId: string;
  /** Team import: the team every record goes into. Workspace import: none (the export's teams are created). */
  teamId?: string;
  update: boolean;
  members: Array<{ id: string; email: string }>;
  /** The workspace's labels; `editable`: the caller may rename or recolour it (the rule of PATCH /labels). */
  labels: Array<{ id: string; name: string; color: string; editable: boolean }>;
  /** Comments of the target that the export names (update:true only); `editable`: the caller may edit it (PATCH /comments). */
  comments: Map<string, { content: string; editable: boolean }>;
  fields: Array<Definition & { id: string; recordTypes: string[] }>;
  /** Ids of the export's records that exist in the target (update:true only), with a task's or project's number; those are overwritten. */
  existing: Map<string, number | null>;
  /** Users already in the target team. */
  teamMembers: Set<string>;
}

const omitTimes = <T extends { createdAt: string; updatedAt: string }>({ createdAt: _c, updatedAt: _u, ...rest }: T) => rest;

/** What every planner shares: the target, the ids mapped so far, the refusals, and the mappings earlier planners made. */
class PlanState {
  readonly ids = new Map<string, string>();
  readonly errors = new Map<string, string[]>();
  /** Definitions by key: the target's, then those the import creates. */
  readonly definitions: Map<string, Definition & { recordTypes: string[] }>;
  /** New records of a team are numbered 1, 2, … in export order; import.ts adds the team's counter. */
  readonly counters = new Map<string, { tasks: number; projects: number }>();
  #users = new Map<string, string | null>();
  readonly #memberIds: Set<string>;

  constructor(
    readonly doc: ExportDocumentDto,
    readonly target: Target,
  ) {
    this.#memberIds = new Set(target.members.map((m) => m.id));
    this.definitions = new Map(target.fields.map((f) => [f.key, f]));
  }

  get data(): Data {
    return this.doc.data;
  }

  /** A refusal at `path` under `data.data.` (a 422 once every planner ran). */
  fail(path: string, message: string) {
    const key = `data.data.${path}`;
    this.errors.set(key, [...(this.errors.get(key) ?? []), message]);
  }

  /** With `update`, a record whose id exists in the target keeps it and is overwritten. */
  kept(id: string): boolean {
    return this.target.update && this.target.existing.has(id);
  }

  /** The target's id for an export record: its own when kept, else a new one. */
  mapId(id: string, prefix: Parameters<typeof newId>[0]): string {
    const mapped = this.kept(id) ? id : newId(prefix);
    this.ids.set(id, mapped);
    return mapped;
  }

  /** Users map by id, else by email, among the target workspace's members (planUsers fills this). */
  setUser(exportId: string, email: string) {
    const byEmail = this.target.members.find((m) => m.email.toLowerCase() === email.toLowerCase())?.id ?? null;
    this.#users.set(exportId, this.#memberIds.has(exportId) ? exportId : byEmail);
  }

  /** The target member an export user stands for; null for nobody (an import never points outside the workspace). */
  user(id: string | null): string | null {
    return id === null ? null : this.#memberIds.has(id) ? id : (this.#users.get(id) ?? null);
  }

  /** The target's label ids for an export record's label ids. */
  labelIds(list: string[], path: string): string[] {
    return list.map((id, i) => {
      const mapped = this.ids.get(id);
      if (!mapped) this.fail(`${path}.${i}`, "Not a label of the export");
      return mapped ?? id;
    });
  }

  /** A record's custom values checked against the definitions; a `user` value outside the workspace is dropped, like an assignee. */
  customFields(values: Record<string, unknown>, type: RecordType, path: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, raw] of Object.entries(values)) {
      const def = this.definitions.get(key);
      if (!def?.recordTypes.includes(type)) {
        this.fail(`${path}.${key}`, `Unknown custom field for a ${type}`);
        continue;
      }
      const problem = valueProblem(def, raw);
      if (problem) this.fail(`${path}.${key}`, problem);
      else if (def.type === "user") {
        const mapped = this.user(raw as string);
        if (mapped) out[key] = mapped;
      } else if (raw !== null) out[key] = raw;
    }
    return out;
  }

  /** The team a record of the export goes into: the target team, or (a workspace import) the team its export team became. */
  teamOf(id: string, path: string): string {
    if (this.target.teamId) return this.target.teamId;
    const mapped = this.ids.get(id);
    if (!mapped) this.fail(path, "Not a team of the export");
    return mapped ?? id;
  }

  /** A new record's number in its team (the export's order). */
  nextNumber(team: string, kind: "tasks" | "projects"): number {
    const c = this.counters.get(team) ?? { tasks: 0, projects: 0 };
    this.counters.set(team, c);
    return ++c[kind];
  }
}

function planUsers(state: PlanState) {
  for (const u of state.data.users) state.setUser(u.id, u.email);
}

/** Labels: the same id in the target (update), else the same name, else a new label. */
function planLabels(state: PlanState) {
  const byName = new Map(state.target.labels.map((l) => [l.name.toLowerCase(), l.id]));
  const byId = new Map(state.target.labels.map((l) => [l.id, l]));
  /** `overwrite`: labels the export changes (an unchanged one is not written); `refused`: those of them the caller may not edit. */
  const labels = { insert: [] as Data["labels"], overwrite: [] as Data["labels"], refused: [] as string[] };
  for (const label of state.data.labels) {
    if (state.kept(label.id)) {
      state.ids.set(label.id, label.id);
      const current = byId.get(label.id);
      if (current && (current.name !== label.name || current.color.toUpperCase() !== label.color.toUpperCase())) {
        labels.overwrite.push(label);
        if (!current.editable) labels.refused.push(current.name);
      }
      continue;
    }
    const same = byName.get(label.name.toLowerCase());
    if (same) {
      state.ids.set(label.id, same);
      continue;
    }
    const created = { ...label, id: newId("label") };
    byName.set(label.name.toLowerCase(), created.id);
    state.ids.set(label.id, created.id);
    labels.insert.push(created);
  }
  return labels;
}

/** Fields: by key; a key the target lacks is created from the export's definition. */
function planFields(state: PlanState) {
  const inserts: Array<Data["fields"][number]> = [];
  for (const field of state.data.fields) {
    if (state.definitions.has(field.key)) continue;
    const created = { ...field, id: newId("fdef") };
    state.definitions.set(field.key, { ...created, metadata: created.metadata as Record<string, unknown> });
    inserts.push(created);
  }
  return inserts;
}

/**
 * Teams (a workspace import creates the export's; a team import puts everything into the target team), their members,
 * and, importing a team's own export back with `update`, its name and description.
 */
function planTeams(state: PlanState) {
  const { data, target } = state;
  const teams = target.teamId ? [] : data.teams.map((t) => ({ ...omitTimes(t), id: state.mapId(t.id, "team") }));
  for (const [i, t] of teams.entries()) {
    if (t.parentId === null) continue;
    const parent = state.ids.get(t.parentId);
    if (!parent) state.fail(`teams.${i}.parentId`, "Not a team of the export");
    t.parentId = parent ?? null;
  }
  // As PATCH /teams refuses it: no team under itself or one of its sub-teams.
  const ordered = parentsFirst(teams, (i) =>
    state.fail(`teams.${i}.parentId`, "Teams must not form a cycle (a team under itself or one of its sub-teams)"),
  );

  const rootTeam = data.teams.find((t) => t.id === data.root);
  const sources = target.teamId
    ? state.doc.type === "team" && rootTeam
      ? [{ team: target.teamId, members: rootTeam.members }]
      : []
    : data.teams.map((t) => ({ team: state.ids.get(t.id) as string, members: t.members }));
  const members = sources.flatMap(({ team, members }) =>
    members.flatMap((m) => {
      const userId = state.user(m.userId);
      if (!userId || (target.teamId && target.teamMembers.has(userId))) return [];
      return [{ id: newId("tmbr"), teamId: team, userId, role: m.role }];
    }),
  );
  const overwrite =
    target.teamId && state.doc.type === "team" && rootTeam && state.kept(rootTeam.id) && rootTeam.id === target.teamId
      ? { name: rootTeam.name, description: rootTeam.description }
      : null;
  return { teams: ordered, members, overwrite };
}

function planProjects(state: PlanState) {
  return state.data.projects.map((p, i) => {
    const id = state.mapId(p.id, "proj");
    const teamId = state.teamOf(p.teamId, `projects.${i}.teamId`);
    const { reference: _r, labelIds: _l, customFields: _c, ...rest } = omitTimes(p);
    return {
      ...rest,
      id,
      teamId,
      number: state.kept(p.id) ? (state.target.existing.get(p.id) as number) : state.nextNumber(teamId, "projects"),
      leadId: state.user(p.leadId),
      labelIds: state.labelIds(p.labelIds, `projects.${i}.labelIds`),
      customFields: state.customFields(p.customFields, "project", `projects.${i}.customFields`),
    };
  });
}

function planMilestones(state: PlanState) {
  return state.data.milestones.map((m, i) => {
    const id = state.mapId(m.id, "mile");
    const projectId = state.ids.get(m.projectId);
    if (!projectId) state.fail(`milestones.${i}.projectId`, "Not a project of the export");
    const { customFields: _c, ...rest } = omitTimes(m);
    return {
      ...rest,
      id,
      projectId: projectId ?? m.projectId,
      customFields: state.customFields(m.customFields, "milestone", `milestones.${i}.customFields`),
    };
  });
}

/** Tasks, parents before subtasks; links to records outside the export (a subtask's parent, an exported task's project) are dropped. */
function planTasks(
  state: PlanState,
  projects: Array<{ id: string; teamId: string }>,
  milestones: Array<{ id: string; projectId: string }>,
) {
  const projectTeam = new Map(projects.map((p) => [p.id, p.teamId]));
  const milestoneProject = new Map(milestones.map((m) => [m.id, m.projectId]));
  const link = (id: string | null) => (id === null ? null : (state.ids.get(id) ?? null));
  for (const t of state.data.tasks) state.mapId(t.id, "task");
  const tasks = state.data.tasks.map((t, i) => {
    const teamId = state.teamOf(t.teamId, `tasks.${i}.teamId`);
    const { reference: _r, labelIds: _l, customFields: _c, ...rest } = omitTimes(t);
    const [projectId, milestoneId, parentId] = [link(t.projectId), link(t.milestoneId), link(t.parentId)];
    if (projectId && projectTeam.get(projectId) !== teamId) state.fail(`tasks.${i}.projectId`, "Must be a project of the task's team");
    if (milestoneId && milestoneProject.get(milestoneId) !== projectId)
      state.fail(`tasks.${i}.milestoneId`, "Must be a milestone of the task's project");
    return {
      ...rest,
      id: state.ids.get(t.id) as string,
      teamId,
      number: state.kept(t.id) ? (state.target.existing.get(t.id) as number) : state.nextNumber(teamId, "tasks"),
      projectId,
      milestoneId,
      parentId,
      assigneeId: state.user(t.assigneeId),
      labelIds: state.labelIds(t.labelIds, `tasks.${i}.labelIds`),
      customFields: state.customFields(t.customFields, "task", `tasks.${i}.customFields`),
    };
  });
  const ordered = parentsFirst(tasks, (i) => state.fail(`tasks.${i}.parentId`, "Subtasks must not form a cycle"));
  const taskTeam = new Map(tasks.map((t) => [t.id, t.teamId]));
  for (const [i, t] of tasks.entries())
    if (t.parentId && taskTeam.get(t.parentId) !== t.teamId) state.fail(`tasks.${i}.parentId`, "Must be a task of the same team");
  return ordered;
}

/** Comments on exactly one record of the export; an author outside the workspace becomes the importer. */
function planComments(state: PlanState) {
  const comments = state.data.comments.map((c, i) => {
    const linkOf = (id: string | null, what: string) => {
      if (id === null) return null;
      const mapped = state.ids.get(id);
      if (!mapped) state.fail(`comments.${i}.${what}`, "Not a record of the export");
      return mapped ?? null;
    };
    const links = {
      taskId: linkOf(c.taskId, "taskId"),
      projectId: linkOf(c.projectId, "projectId"),
      milestoneId: linkOf(c.milestoneId, "milestoneId"),
    };
    if ([links.taskId, links.projectId, links.milestoneId].filter(Boolean).length !== 1)
      state.fail(`comments.${i}`, "Must be on exactly one task, project or milestone");
    return { id: state.mapId(c.id, "cmnt"), authorId: state.user(c.authorId) ?? state.target.callerId, content: c.content, ...links };
  });
  /** Overwritten comments whose content changes and that the caller may not edit (only their author may). */
  const refused = comments.flatMap((c, i) => {
    const current = state.target.comments.get(c.id);
    return current && !current.editable && current.content !== c.content ? [`comments.${i}`] : [];
  });
  return { comments, refused };
}

export type Plan = ReturnType<typeof planImport>;

/**
 * Maps the export onto the target: see the planners above. Throws a ValidationError (paths under `data.data.`) for
 * links that cannot hold, once every planner ran (so one answer names every bad value).
 */
export function planImport(doc: ExportDocumentDto, target: Target) {
  const state = new PlanState(doc, target);
  planUsers(state);
  const labels = planLabels(state);
  const fields = planFields(state);
  const teams = planTeams(state);
  const projects = planProjects(state);
  const milestones = planMilestones(state);
  const tasks = planTasks(state, projects, milestones);
  const { comments, refused } = planComments(state);
  if (state.errors.size) throw new ValidationError(Object.fromEntries(state.errors));
  return {
    labels,
    fields,
    teams: teams.teams,
    teamOverwrite: teams.overwrite,
    teamMembers: teams.members,
    counters: state.counters,
    projects,
    milestones,
    tasks,
    comments,
    refusedComments: refused,
    /** The ids of records overwritten in place (their numbers are final; new records' numbers are offsets). */
    kept: new Set([...state.ids.values()].filter((id) => state.kept(id))),
  };
}

/** Records with every parent before its children (chunked inserts then never point forward); reports cycles. */
function parentsFirst<T extends { id: string; parentId: string | null }>(rows: T[], cycle: (index: number) => void): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const index = new Map(rows.map((r, i) => [r.id, i]));
  const state = new Map<string, "visiting" | "done">();
  const out: T[] = [];
  for (const start of rows) {
    // Iterative walk up the parent chain (exports can be thousands deep in theory; no recursion).
    const chain: T[] = [];
    let at: T | undefined = start;
    while (at && !state.has(at.id)) {
      state.set(at.id, "visiting");
      chain.push(at);
      at = at.parentId ? byId.get(at.parentId) : undefined;
    }
    if (at && state.get(at.id) === "visiting") cycle(index.get(at.id) as number);
    for (const r of chain.reverse()) {
      state.set(r.id, "done");
      out.push(r);
    }
  }
  return out;
}
