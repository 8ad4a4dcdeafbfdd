// What an import writes, decided before it is written: every id of the export mapped to the target's id, every link
// checked, every custom value type-checked. No I/O here; import.ts reads the target and the records, and writes.
// The small collections (users, labels, fields, teams, projects, milestones) are planned at once, in dependency order;
// tasks and comments, which may be hundreds of thousands, a page at a time: a first pass over the tasks maps their ids
// and their parents (so a subtask may come before its parent, and a comment before its task's page), then each
// page is planned and written. Every planner reads and adds to one PlanState: the id map, the refusals, and what the
// earlier planners decided; the collections hanging on tasks are planned by their parts (src/store/transfer-part.ts),
// which see it as their ImportPlan.
import { ValidationError } from "../../core/errors";
import { newId } from "../../ids";
import { type Definition, type RecordType, valueProblem } from "../../records/custom-fields";
import { foldName } from "../../records/names";
import type { ExportType, ImportPlan, Located } from "../../store/transfer-part";
import type { ExportedComment } from "../comments/record";
import { type ExportedTask, NOT_AN_AGENT } from "../tasks/record";
import type { ExportDataDto } from "./schema";

type Data = ExportDataDto;

/** What an import holds besides its tasks, comments and paged parts (those come in pages). */
export interface ImportHead {
  type: ExportType;
  root: string;
  workspace: Data["workspace"];
  users: Located<Data["users"][number]>[];
  labels: Located<Data["labels"][number]>[];
  fields: Located<Data["fields"][number]>[];
  teams: Located<Data["teams"][number]>[];
  projects: Located<Data["projects"][number]>[];
  milestones: Located<Data["milestones"][number]>[];
  /** The tasks and comments the records of the document's filed parts hang on: the import's answer places them. */
  filed: { tasks: Set<string>; comments: Set<string>; files: Located<Filed>[] };
}

/** Where the import put the records the document's files hang on: each one's id in the target, by its id in the export. */
export interface Placed {
  tasks: Record<string, string>;
  comments: Record<string, string>;
}

/** A filed part's record: on a task, and on a comment of it when it names one. */
export type Filed = { taskId: string; commentId: string | null };

/** The tasks and comments that `files` (the filed parts' records) hang on. */
export const filedRecords = (files: Located<Filed>[]): ImportHead["filed"] => {
  const filed = { tasks: new Set<string>(), comments: new Set<string>(), files };
  for (const { record: f } of files) {
    filed.tasks.add(f.taskId);
    if (f.commentId !== null) filed.comments.add(f.commentId);
  }
  return filed;
};

/** The target as the import finds it (import.ts reads it in one statement). */
export interface Target {
  workspaceId: string;
  callerId: string;
  /** Team import: the team every record goes into. Workspace import: none (the export's teams are created). */
  teamId?: string;
  update: boolean;
  /** The workspace's members; `type`: a person or an agent (only an agent may be a delegate). */
  members: Array<{ id: string; email: string; type: "HUMAN" | "AGENT" }>;
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
export class PlanState implements ImportPlan {
  readonly ids = new Map<string, string>();
  readonly errors = new Map<string, string[]>();
  /** Definitions by key: the target's, then those the import creates. */
  readonly definitions: Map<string, Definition & { recordTypes: string[] }>;
  /** New records of a team are numbered 1, 2, … in export order; import.ts adds the team's counter. */
  readonly counters = new Map<string, { tasks: number; projects: number }>();
  /**
   * Each task of the export: its parent and team in the export, and where a subtask is (the first pass fills it). This
   * is what the Worker holds per task for the whole import, so it is kept small: a team's id is one string for all its
   * tasks, and only a subtask keeps its path (only a subtask can be in a cycle, the one error reported from here).
   */
  readonly tasks = new Map<string, { parentId: string | null; teamId: string; at?: string }>();
  readonly #teamIds = new Map<string, string>();
  /** A project's team and a milestone's project, as the import writes them (the task pages check what they name against them). */
  readonly projectTeam = new Map<string, string>();
  readonly milestoneProject = new Map<string, string>();
  /**
   * The target's id of each filed comment (ImportHead's `filed`), set as its page is planned; a comment's new id is
   * kept only for these, so the Worker holds no map of every comment.
   */
  readonly #filedComments = new Map<string, string>();
  #users = new Map<string, string | null>();
  readonly #memberIds: Set<string>;
  readonly #agentIds: Set<string>;

  constructor(
    readonly head: ImportHead,
    readonly target: Target,
  ) {
    this.#memberIds = new Set(target.members.map((m) => m.id));
    this.#agentIds = new Set(target.members.filter((m) => m.type === "AGENT").map((m) => m.id));
    this.definitions = new Map(target.fields.map((f) => [f.key, f]));
  }

  /** Records a task of the export in the first pass (surveyTasks). */
  survey(task: { id: string; parentId: string | null; teamId: string }, at: string) {
    const teamId = this.#teamIds.get(task.teamId) ?? task.teamId;
    this.#teamIds.set(teamId, teamId);
    this.tasks.set(task.id, task.parentId === null ? { parentId: null, teamId } : { parentId: task.parentId, teamId, at });
  }

  /** A refusal at `path` (a 422 once every record was planned). */
  fail(path: string, message: string) {
    this.errors.set(path, [...(this.errors.get(path) ?? []), message]);
  }

  /**
   * Each filed record of the document hangs on a task of it, and on a comment of it when it names one, as an upload
   * needs its task or comment (once every comment page was planned).
   */
  checkFiled() {
    for (const { record: f, at } of this.head.filed.files) {
      if (!this.tasks.has(f.taskId)) this.fail(`${at}.taskId`, "Not a task of the export");
      else if (f.commentId !== null && !this.#filedComments.has(f.commentId)) this.fail(`${at}.commentId`, "Not a comment of the export");
    }
  }

  /** Throws the 422 naming every refusal, if there is any. */
  refuseIfFailed() {
    if (this.errors.size) throw new ValidationError(Object.fromEntries(this.errors));
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

  /** The target agent a task's delegate stands for (as user); a person fails at `path`, as POST/PATCH refuse one. */
  agent(id: string | null, path: string): string | null {
    const mapped = this.user(id);
    if (mapped !== null && !this.#agentIds.has(mapped)) this.fail(path, NOT_AN_AGENT);
    return mapped;
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

  /** Task `id` of the export, as the target's id and team; null (refused at `path`) when it is not one. */
  task(id: string, path: string): { id: string; teamId: string } | null {
    const task = this.tasks.get(id);
    if (!task) {
      this.fail(path, "Not a task of the export");
      return null;
    }
    return { id: this.ids.get(id) as string, teamId: this.teamOf(task.teamId) };
  }

  /** The team a record of the export goes into: the target team, or (a workspace import) the team its export team became. */
  teamOf(id: string, path?: string): string {
    if (this.target.teamId) return this.target.teamId;
    const mapped = this.ids.get(id);
    if (!mapped && path) this.fail(path, "Not a team of the export");
    return mapped ?? id;
  }

  /** Notes where a comment of the export went, if a file hangs on it. */
  placeComment(exportId: string, id: string) {
    if (this.head.filed.comments.has(exportId)) this.#filedComments.set(exportId, id);
  }

  /** The filed tasks and comments, each with its id in the target (once every page was planned); one not imported is left out. */
  placed(): Placed {
    const tasks: Record<string, string> = {};
    for (const id of this.head.filed.tasks) {
      const mapped = this.tasks.has(id) ? this.ids.get(id) : undefined;
      if (mapped) tasks[id] = mapped;
    }
    return { tasks, comments: Object.fromEntries(this.#filedComments) };
  }

  /** A new record's number in its team (the export's order). */
  nextNumber(team: string, kind: "tasks" | "projects"): number {
    const c = this.counters.get(team) ?? { tasks: 0, projects: 0 };
    this.counters.set(team, c);
    return ++c[kind];
  }
}

export function planUsers(state: PlanState) {
  for (const { record: u } of state.head.users) state.setUser(u.id, u.email);
}

/** Labels: the same id in the target (update), else the same name, else a new label. */
export function planLabels(state: PlanState) {
  const byName = new Map(state.target.labels.map((l) => [foldName(l.name), l.id]));
  const byId = new Map(state.target.labels.map((l) => [l.id, l]));
  /** `overwrite`: labels the export changes (an unchanged one is not written); `refused`: those of them the caller may not edit. */
  const labels = { insert: [] as Data["labels"], overwrite: [] as Data["labels"], refused: [] as string[] };
  for (const { record: label } of state.head.labels) {
    if (state.kept(label.id)) {
      state.ids.set(label.id, label.id);
      const current = byId.get(label.id);
      if (current && (current.name !== label.name || current.color.toUpperCase() !== label.color.toUpperCase())) {
        labels.overwrite.push(label);
        if (!current.editable) labels.refused.push(current.name);
      }
      continue;
    }
    const same = byName.get(foldName(label.name));
    if (same) {
      state.ids.set(label.id, same);
      continue;
    }
    const created = { ...label, id: newId("label") };
    byName.set(foldName(label.name), created.id);
    state.ids.set(label.id, created.id);
    labels.insert.push(created);
  }
  return labels;
}

/** Fields: by key; a key the target lacks is created from the export's definition. */
export function planFields(state: PlanState) {
  const inserts: Array<Data["fields"][number]> = [];
  for (const { record: field } of state.head.fields) {
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
export function planTeams(state: PlanState) {
  const { head, target } = state;
  const teams = target.teamId
    ? []
    : head.teams.map(({ record: t, at }) => ({ row: { ...omitTimes(t), id: state.mapId(t.id, "team") }, at }));
  for (const { row: t, at } of teams) {
    if (t.parentId === null) continue;
    const parent = state.ids.get(t.parentId);
    if (!parent) state.fail(`${at}.parentId`, "Not a team of the export");
    t.parentId = parent ?? null;
  }
  // As PATCH /teams refuses it: no team under itself or one of its sub-teams. Parents first: one statement inserts them.
  const ordered = parentsFirst(
    teams.map((t) => t.row),
    (i) => state.fail(`${teams[i].at}.parentId`, "Teams must not form a cycle (a team under itself or one of its sub-teams)"),
  );

  const rootTeam = head.teams.find((t) => t.record.id === head.root)?.record;
  const sources = target.teamId
    ? head.type === "team" && rootTeam
      ? [{ team: target.teamId, members: rootTeam.members }]
      : []
    : head.teams.map(({ record: t }) => ({ team: state.ids.get(t.id) as string, members: t.members }));
  const members = sources.flatMap(({ team, members }) =>
    members.flatMap((m) => {
      const userId = state.user(m.userId);
      if (!userId || (target.teamId && target.teamMembers.has(userId))) return [];
      return [{ id: newId("tmbr"), teamId: team, userId, role: m.role }];
    }),
  );
  const overwrite =
    target.teamId && head.type === "team" && rootTeam && state.kept(rootTeam.id) && rootTeam.id === target.teamId
      ? { name: rootTeam.name, description: rootTeam.description }
      : null;
  return { teams: ordered, members, overwrite };
}

export function planProjects(state: PlanState) {
  return state.head.projects.map(({ record: p, at }) => {
    const id = state.mapId(p.id, "proj");
    const teamId = state.teamOf(p.teamId, `${at}.teamId`);
    state.projectTeam.set(id, teamId);
    const { reference: _r, labelIds: _l, customFields: _c, ...rest } = omitTimes(p);
    return {
      ...rest,
      id,
      teamId,
      number: state.kept(p.id) ? (state.target.existing.get(p.id) as number) : state.nextNumber(teamId, "projects"),
      leadId: state.user(p.leadId),
      labelIds: state.labelIds(p.labelIds, `${at}.labelIds`),
      customFields: state.customFields(p.customFields, "project", `${at}.customFields`),
    };
  });
}

export function planMilestones(state: PlanState) {
  return state.head.milestones.map(({ record: m, at }) => {
    const id = state.mapId(m.id, "mile");
    const projectId = state.ids.get(m.projectId);
    if (!projectId) state.fail(`${at}.projectId`, "Not a project of the export");
    state.milestoneProject.set(id, projectId ?? m.projectId);
    const { customFields: _c, ...rest } = omitTimes(m);
    return {
      ...rest,
      id,
      projectId: projectId ?? m.projectId,
      // Its project's (checked by the database): an unknown project leaves it empty, and the import is refused anyway.
      teamId: state.projectTeam.get(projectId ?? "") ?? "",
      customFields: state.customFields(m.customFields, "milestone", `${at}.customFields`),
    };
  });
}

/**
 * The first pass over the tasks, a page at a time: each gets its id in the target, and its parent link and team are
 * kept for the second. Returns the number of new tasks per team (the references import.ts reserves).
 */
export function surveyTasks(state: PlanState, page: Located<ExportedTask>[]) {
  for (const { record: t, at } of page) {
    state.mapId(t.id, "task");
    state.survey(t, at);
  }
}

/** New tasks per team, once every task was surveyed (numbered from 1 in the export's order; import.ts adds the counter). */
export function newTasksPerTeam(state: PlanState): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [id, { teamId }] of state.tasks) {
    if (state.kept(id)) continue;
    const team = state.teamOf(teamId);
    counts.set(team, (counts.get(team) ?? 0) + 1);
  }
  return counts;
}

/** Subtasks must not form a cycle (walked over the whole export's parents, iteratively: chains may be long). */
export function checkTaskCycles(state: PlanState) {
  const done = new Set<string>();
  for (const start of state.tasks.keys()) {
    const chain = new Set<string>();
    let at: string | undefined = start;
    while (at && !done.has(at) && !chain.has(at)) {
      chain.add(at);
      const parent: string | null = state.tasks.get(at)?.parentId ?? null;
      at = parent !== null && state.tasks.has(parent) ? parent : undefined;
    }
    if (at && chain.has(at)) state.fail(`${state.tasks.get(at)?.at}.parentId`, "Subtasks must not form a cycle");
    for (const id of chain) done.add(id);
  }
}

/**
 * A page of tasks, after the survey: the rows to write. Links to records outside the export (a subtask's parent, an
 * exported task's project) are dropped.
 */
export function planTaskPage(state: PlanState, page: Located<ExportedTask>[]) {
  const link = (id: string | null) => (id === null ? null : (state.ids.get(id) ?? null));
  return page.map(({ record: t, at }) => {
    const teamId = state.teamOf(t.teamId, `${at}.teamId`);
    const { reference: _r, labelIds: _l, customFields: _c, ...rest } = omitTimes(t);
    const [projectId, milestoneId, parentId] = [link(t.projectId), link(t.milestoneId), link(t.parentId)];
    if (projectId && state.projectTeam.get(projectId) !== teamId) state.fail(`${at}.projectId`, "Must be a project of the task's team");
    if (milestoneId && state.milestoneProject.get(milestoneId) !== projectId)
      state.fail(`${at}.milestoneId`, "Must be a milestone of the task's project");
    const parent = t.parentId === null ? undefined : state.tasks.get(t.parentId);
    if (parent && state.teamOf(parent.teamId) !== teamId) state.fail(`${at}.parentId`, "Must be a task of the same team");
    return {
      ...rest,
      id: state.ids.get(t.id) as string,
      teamId,
      number: state.kept(t.id) ? (state.target.existing.get(t.id) as number) : state.nextNumber(teamId, "tasks"),
      projectId,
      milestoneId,
      parentId,
      // Its cycle's part puts it in its cycle, once the cycles are written (src/resources/cycles/transfer.ts).
      cycleId: null,
      assigneeId: state.user(t.assigneeId),
      delegateId: state.agent(t.delegateId, `${at}.delegateId`),
      labelIds: state.labelIds(t.labelIds, `${at}.labelIds`),
      customFields: state.customFields(t.customFields, "task", `${at}.customFields`),
    };
  });
}

/**
 * A page of comments: each on exactly one record of the export; an author outside the workspace becomes the importer.
 * `refused`: overwritten comments whose content changes and that the caller may not edit (only their author may).
 */
export function planCommentPage(state: PlanState, page: Located<ExportedComment>[]) {
  const refused: string[] = [];
  const comments = page.map(({ record: c, at }) => {
    const linkOf = (id: string | null, what: string) => {
      if (id === null) return null;
      const mapped = state.ids.get(id);
      if (!mapped) state.fail(`${at}.${what}`, "Not a record of the export");
      return mapped ?? null;
    };
    const targets = {
      taskId: linkOf(c.taskId, "taskId"),
      projectId: linkOf(c.projectId, "projectId"),
      milestoneId: linkOf(c.milestoneId, "milestoneId"),
    };
    if ([targets.taskId, targets.projectId, targets.milestoneId].filter(Boolean).length !== 1)
      state.fail(at, "Must be on exactly one task, project or milestone");
    const id = state.kept(c.id) ? c.id : newId("cmnt");
    state.placeComment(c.id, id);
    const current = state.target.comments.get(id);
    if (current && !current.editable && current.content !== c.content) refused.push(at);
    // The team of what it is on (checked by the database); a name that failed leaves it empty, and the import is refused.
    const task = c.taskId === null ? undefined : state.tasks.get(c.taskId);
    const projectId = targets.projectId ?? state.milestoneProject.get(targets.milestoneId ?? "");
    const teamId = task ? state.teamOf(task.teamId) : (state.projectTeam.get(projectId ?? "") ?? "");
    return { id, authorId: state.user(c.authorId) ?? state.target.callerId, content: c.content, teamId, ...targets };
  });
  return { comments, refused };
}

/** Records with every parent before its children (one statement then never points forward); reports cycles. */
function parentsFirst<T extends { id: string; parentId: string | null }>(rows: T[], cycle: (index: number) => void): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const index = new Map(rows.map((r, i) => [r.id, i]));
  const state = new Map<string, "visiting" | "done">();
  const out: T[] = [];
  for (const start of rows) {
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
