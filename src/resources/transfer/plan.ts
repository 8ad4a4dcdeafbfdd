// What an import writes, decided before the first write: every id of the export mapped to the target's id, every
// link checked, every custom value type-checked. No I/O here; import.ts reads the target first and writes the plan.
import { ValidationError } from "../../core/errors";
import { newId } from "../../ids";
import { type Definition, valueProblem } from "../../records/custom-fields";
import type { ExportDataDto, ExportDocumentDto } from "./schema";

type Data = ExportDataDto;
type RecordType = "task" | "project" | "milestone";

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

export type Plan = ReturnType<typeof planImport>;

/**
 * Maps the export onto the target. Ids: with `update`, a record whose id exists in the target keeps it (and is
 * overwritten); every other record gets a new id. Users map to the target workspace's member with the same id,
 * else the same email, else to nobody (an assignee or lead is cleared, a comment's author becomes the importer):
 * an import never points at anyone outside the workspace. Labels map by id (update) or name, fields by key; the
 * missing ones are created. Throws a ValidationError (paths under `data.data.`) for links that cannot hold.
 */
export function planImport(doc: ExportDocumentDto, target: Target) {
  const data = doc.data;
  const errors: Record<string, string[]> = {};
  const fail = (path: string, message: string) => {
    const key = `data.data.${path}`;
    errors[key] = [...(errors[key] ?? []), message];
  };
  const ids = new Map<string, string>();
  const kept = (id: string) => target.update && target.existing.has(id);
  const mapId = (id: string, prefix: Parameters<typeof newId>[0]) => {
    const mapped = kept(id) ? id : newId(prefix);
    ids.set(id, mapped);
    return mapped;
  };

  // Users: by id, else by email, among the target workspace's members.
  const memberIds = new Set(target.members.map((m) => m.id));
  const memberByEmail = new Map(target.members.map((m) => [m.email.toLowerCase(), m.id]));
  const userMap = new Map<string, string | null>();
  for (const u of data.users) userMap.set(u.id, memberIds.has(u.id) ? u.id : (memberByEmail.get(u.email.toLowerCase()) ?? null));
  const user = (id: string | null) => (id === null ? null : memberIds.has(id) ? id : (userMap.get(id) ?? null));

  // Labels: the same id in the target (update), else the same name, else a new label.
  const labelByName = new Map(target.labels.map((l) => [l.name.toLowerCase(), l.id]));
  const labelById = new Map(target.labels.map((l) => [l.id, l]));
  /** `overwrite`: labels the export changes (an unchanged one is not written); `refused`: those of them the caller may not edit. */
  const labels = { insert: [] as Data["labels"], overwrite: [] as Data["labels"], refused: [] as string[] };
  for (const label of data.labels) {
    if (kept(label.id)) {
      ids.set(label.id, label.id);
      const current = labelById.get(label.id);
      if (current && (current.name !== label.name || current.color.toUpperCase() !== label.color.toUpperCase())) {
        labels.overwrite.push(label);
        if (!current.editable) labels.refused.push(current.name);
      }
      continue;
    }
    const same = labelByName.get(label.name.toLowerCase());
    if (same) {
      ids.set(label.id, same);
      continue;
    }
    const created = { ...label, id: newId("label") };
    labelByName.set(label.name.toLowerCase(), created.id);
    ids.set(label.id, created.id);
    labels.insert.push(created);
  }
  const labelIds = (list: string[], path: string) =>
    list.map((id, i) => {
      const mapped = ids.get(id);
      if (!mapped) fail(`${path}.${i}`, "Not a label of the export");
      return mapped ?? id;
    });

  // Fields: by key; a key the target lacks is created from the export's definition.
  const definitions = new Map(target.fields.map((f) => [f.key, f]));
  const fieldInserts: Array<Data["fields"][number]> = [];
  for (const field of data.fields) {
    if (definitions.has(field.key)) continue;
    const created = { ...field, id: newId("fdef") };
    definitions.set(field.key, { ...created, metadata: created.metadata as Record<string, unknown> });
    fieldInserts.push(created);
  }
  const customFields = (values: Record<string, unknown>, type: RecordType, path: string) => {
    const out: Record<string, unknown> = {};
    for (const [key, raw] of Object.entries(values)) {
      const def = definitions.get(key);
      if (!def?.recordTypes.includes(type)) {
        fail(`${path}.${key}`, `Unknown custom field for a ${type}`);
        continue;
      }
      const problem = valueProblem(def, raw);
      if (problem) fail(`${path}.${key}`, problem);
      else if (def.type === "user") {
        const mapped = user(raw as string);
        if (mapped) out[key] = mapped; // a user outside the workspace is dropped, like an assignee
      } else if (raw !== null) out[key] = raw;
    }
    return out;
  };

  // Teams (workspace import only: team imports put everything into the target team).
  const teams = target.teamId ? [] : data.teams.map((t) => ({ ...omitTimes(t), id: mapId(t.id, "team") }));
  const teamOf = (id: string, path: string) => {
    if (target.teamId) return target.teamId;
    const mapped = ids.get(id);
    if (!mapped) fail(path, "Not a team of the export");
    return mapped ?? id;
  };
  for (const [i, t] of teams.entries()) {
    if (t.parentId === null) continue;
    const parent = ids.get(t.parentId);
    if (!parent) fail(`teams.${i}.parentId`, "Not a team of the export");
    t.parentId = parent ?? null;
  }
  // As PATCH /teams refuses it: no team under itself or one of its sub-teams.
  const orderedTeams = parentsFirst(teams, (i) =>
    fail(`teams.${i}.parentId`, "Teams must not form a cycle (a team under itself or one of its sub-teams)"),
  );

  const rootTeam = data.teams.find((t) => t.id === data.root);
  const memberSources = target.teamId
    ? doc.type === "team" && rootTeam
      ? [{ team: target.teamId, members: rootTeam.members }]
      : []
    : data.teams.map((t) => ({ team: ids.get(t.id) as string, members: t.members }));
  const teamMembers = memberSources.flatMap(({ team, members }) =>
    members.flatMap((m) => {
      const userId = user(m.userId);
      if (!userId || (target.teamId && target.teamMembers.has(userId))) return [];
      return [{ id: newId("tmbr"), teamId: team, userId, role: m.role }];
    }),
  );
  // With update, importing a team's own export back overwrites its name and description.
  const teamOverwrite =
    target.teamId && doc.type === "team" && rootTeam && kept(rootTeam.id) && rootTeam.id === target.teamId
      ? { name: rootTeam.name, description: rootTeam.description }
      : null;

  /** New records of a team are numbered 1, 2, … in export order; import.ts adds the team's counter. */
  const counters = new Map<string, { tasks: number; projects: number }>();
  const nextNumber = (team: string, kind: "tasks" | "projects") => {
    const c = counters.get(team) ?? { tasks: 0, projects: 0 };
    counters.set(team, c);
    return ++c[kind];
  };

  const projects = data.projects.map((p, i) => {
    const id = mapId(p.id, "proj");
    const teamId = teamOf(p.teamId, `projects.${i}.teamId`);
    const { reference: _r, labelIds: links, customFields: values, ...rest } = omitTimes(p);
    return {
      ...rest,
      id,
      teamId,
      number: kept(p.id) ? (target.existing.get(p.id) as number) : nextNumber(teamId, "projects"),
      leadId: user(p.leadId),
      labelIds: labelIds(links, `projects.${i}.labelIds`),
      customFields: customFields(values, "project", `projects.${i}.customFields`),
    };
  });
  const projectTeam = new Map(projects.map((p) => [p.id, p.teamId]));
  const milestones = data.milestones.map((m, i) => {
    const id = mapId(m.id, "mile");
    const projectId = ids.get(m.projectId);
    if (!projectId) fail(`milestones.${i}.projectId`, "Not a project of the export");
    const { customFields: values, ...rest } = omitTimes(m);
    return {
      ...rest,
      id,
      projectId: projectId ?? m.projectId,
      customFields: customFields(values, "milestone", `milestones.${i}.customFields`),
    };
  });
  const milestoneProject = new Map(milestones.map((m) => [m.id, m.projectId]));

  for (const t of data.tasks) mapId(t.id, "task");
  const tasks = data.tasks.map((t, i) => {
    const id = ids.get(t.id) as string;
    const teamId = teamOf(t.teamId, `tasks.${i}.teamId`);
    const { reference: _r, labelIds: links, customFields: values, ...rest } = omitTimes(t);
    // Links to records outside the export (a subtask's parent, the project of an exported task) are dropped.
    const projectId = t.projectId === null ? null : (ids.get(t.projectId) ?? null);
    const milestoneId = t.milestoneId === null ? null : (ids.get(t.milestoneId) ?? null);
    const parentId = t.parentId === null ? null : (ids.get(t.parentId) ?? null);
    if (projectId && projectTeam.get(projectId) !== teamId) fail(`tasks.${i}.projectId`, "Must be a project of the task's team");
    if (milestoneId && milestoneProject.get(milestoneId) !== projectId)
      fail(`tasks.${i}.milestoneId`, "Must be a milestone of the task's project");
    return {
      ...rest,
      id,
      teamId,
      number: kept(t.id) ? (target.existing.get(t.id) as number) : nextNumber(teamId, "tasks"),
      projectId,
      milestoneId,
      parentId,
      assigneeId: user(t.assigneeId),
      labelIds: labelIds(links, `tasks.${i}.labelIds`),
      customFields: customFields(values, "task", `tasks.${i}.customFields`),
    };
  });
  const ordered = parentsFirst(tasks, (i) => fail(`tasks.${i}.parentId`, "Subtasks must not form a cycle"));
  const taskTeam = new Map(tasks.map((t) => [t.id, t.teamId]));
  for (const [i, t] of tasks.entries())
    if (t.parentId && taskTeam.get(t.parentId) !== t.teamId) fail(`tasks.${i}.parentId`, "Must be a task of the same team");

  const comments = data.comments.map((c, i) => {
    const linkOf = (id: string | null, what: string) => {
      if (id === null) return null;
      const mapped = ids.get(id);
      if (!mapped) fail(`comments.${i}.${what}`, "Not a record of the export");
      return mapped ?? null;
    };
    const links = {
      taskId: linkOf(c.taskId, "taskId"),
      projectId: linkOf(c.projectId, "projectId"),
      milestoneId: linkOf(c.milestoneId, "milestoneId"),
    };
    if ([links.taskId, links.projectId, links.milestoneId].filter(Boolean).length !== 1)
      fail(`comments.${i}`, "Must be on exactly one task, project or milestone");
    return { id: mapId(c.id, "cmnt"), authorId: user(c.authorId) ?? target.callerId, content: c.content, ...links };
  });
  /** Overwritten comments whose content changes and that the caller may not edit (only their author may). */
  const refusedComments = comments.flatMap((c, i) => {
    const current = target.comments.get(c.id);
    return current && !current.editable && current.content !== c.content ? [`comments.${i}`] : [];
  });

  if (Object.keys(errors).length) throw new ValidationError(errors);
  return {
    labels,
    fields: fieldInserts,
    teams: orderedTeams,
    teamOverwrite,
    teamMembers,
    counters,
    projects,
    milestones,
    tasks: ordered,
    comments,
    refusedComments,
    /** The ids of records overwritten in place (their numbers are final; new records' numbers are offsets). */
    kept: new Set([...ids.values()].filter((id) => kept(id))),
  };
}

/** Tasks with every parent before its children (chunked inserts then never point forward); reports cycles. */
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
