// Relations in the export document (src/store/transfer-part.ts): the stored edges among the export's tasks, imported
// by the rules of POST /tasks/{id}/relations (its lock, its refusals), a `blocks` cycle refused once every edge is written.
import { type SQL, sql } from "drizzle-orm";
import { taskRelations, tasks } from "../../../drizzle/schema";
import { ValidationError } from "../../core/errors";
import type { Tx } from "../../db/client";
import type { Reach } from "../../db/scope";
import { lockBlocksGraph } from "../../db/tree-locks";
import { newId } from "../../ids";
import type { ExportScope, ImportContext, ImportPlan, Located, PartImporter, TransferPart } from "../../store/transfer-part";
import { cycleMessage, type ExportedRelation, storedEdge, storedRelationRecord } from "./record";

/**
 * The relations an export holds: those whose two tasks are both in it. Found from their source tasks (the pair key's
 * index leads with them), so an export reads its own tasks' edges, not the whole table's.
 */
function relationCondition({ type, workspace, root, tasks: scoped }: ExportScope): SQL {
  const r = taskRelations;
  const sources = (where: SQL) => sql`${r.sourceTaskId} in (select t.id from ${tasks} t where ${where})`;
  const both = {
    workspace: sql`${sources(sql`t.workspace_id = ${workspace}`)} and exists ${root}`,
    team: sql`${sources(sql`t.team_id = ${root}`)} and ${r.targetTeamId} = ${root}`,
    project: sql`${sources(sql`t.project_id = ${root}`)}
      and exists (select 1 from ${tasks} t where t.id = ${r.targetTaskId} and t.project_id = ${root})`,
    task: sql`${r.sourceTaskId} in ${scoped} and ${r.targetTaskId} in ${scoped}`,
  };
  return sql`${r.workspaceId} = ${workspace} and ${both[type]}`;
}

/**
 * A page of relations, after the tasks, by the rules of POST /tasks/{id}/relations: between two tasks of the export (a
 * relation to a task outside it is refused), not a task with itself, once a pair and meaning (`edges`: each stored edge
 * planned so far, `type source target`, with its path). Each becomes the stored edge between the tasks' ids in the
 * target (`related` again lower id first: the ids may be new). A `blocks` cycle is checked on the written edges, where
 * the target's own edges count too.
 */
export function planRelationPage(state: ImportPlan, edges: Map<string, string>, page: Located<ExportedRelation>[]) {
  return page.flatMap(({ record: r, at }) => {
    const [source, target] = [state.task(r.sourceTaskId, `${at}.sourceTaskId`), state.task(r.targetTaskId, `${at}.targetTaskId`)];
    if (!source || !target) return [];
    if (source.id === target.id) {
      state.fail(`${at}.targetTaskId`, "Must be another task: a task has no relation with itself");
      return [];
    }
    const edge = storedEdge(r.type, source.id, target.id);
    const key = `${edge.type} ${edge.source} ${edge.target}`;
    const first = edges.get(key);
    if (first) {
      state.fail(at, `The same relation as ${first} (one relation per pair of tasks and meaning)`);
      return [];
    }
    edges.set(key, at);
    const teamOf = (id: string) => (id === source.id ? source.teamId : target.teamId);
    return [
      {
        row: {
          id: state.kept(r.id) ? r.id : newId("rel"),
          type: edge.type,
          sourceTaskId: edge.source,
          targetTaskId: edge.target,
          sourceTeamId: teamOf(edge.source),
          targetTeamId: teamOf(edge.target),
          creatorId: state.user(r.createdBy) ?? state.target.callerId,
        },
        at,
      },
    ];
  });
}

type PlannedRelation = ReturnType<typeof planRelationPage>[number];
const relationColumns = (planned: PlannedRelation[]) => ({
  ids: sql.param(planned.map((p) => p.row.id)),
  types: sql.param(planned.map((p) => p.row.type)),
  sources: sql.param(planned.map((p) => p.row.sourceTaskId)),
  targets: sql.param(planned.map((p) => p.row.targetTaskId)),
});

/**
 * A page of relations. No operation changes a relation, so an overwritten one (update, its id in the target) that
 * differs is deleted and written anew (its events say so), and one that is the same stays. An edge the target has
 * already under another id is the same relation twice: refused, as POST's 409 is (422 here, at its path).
 */
async function writeRelations({ tx, plan: state, insert }: ImportContext, planned: PlannedRelation[]) {
  const c = relationColumns(planned);
  const planned_ = sql`unnest(${c.ids}::text[], ${c.types}::text[], ${c.sources}::text[], ${c.targets}::text[]) as p(id, type, source, target)`;
  let unchanged = new Set<string>();
  if (state.target.update) {
    const { rows } = await tx.execute<{ id: string; kept: boolean; other: string | null }>(sql`
      with gone as (delete from ${taskRelations} r using ${planned_} where r.id = p.id
          and (r.type::text, r.source_task_id, r.target_task_id) is distinct from (p.type, p.source, p.target) returning r.id)
      select p.id, true as kept, null as other from ${planned_}
        where exists (select 1 from ${taskRelations} r where r.id = p.id) and p.id not in (select id from gone)
      union all
      select p.id, false, r.id from ${planned_} join ${taskRelations} r on r.source_task_id = p.source and r.target_task_id = p.target
        and r.type::text = p.type and r.id <> p.id and r.id not in (select id from gone)`);
    unchanged = new Set(rows.filter((r) => r.kept).map((r) => r.id));
    for (const row of rows.filter((r) => !r.kept)) {
      const at = planned.find((p) => p.row.id === row.id)?.at as string;
      state.fail(at, `The target's relation ${row.other} is the same relation (one relation per pair of tasks and meaning)`);
    }
    if (rows.some((r) => !r.kept)) return;
  }
  await insert(
    taskRelations,
    planned.filter((p) => !unchanged.has(p.row.id)).map((p) => ({ ...p.row, workspaceId: state.target.workspaceId })),
  );
}

/** A cycle of `blocks` edges, as its tasks in order (each blocks the next, the last the first), or null: a depth-first walk. */
export function blocksCycle(edges: Array<{ source: string; target: string }>): string[] | null {
  const next = new Map<string, string[]>();
  for (const { source, target } of edges) {
    const list = next.get(source);
    if (list) list.push(target);
    else next.set(source, [target]);
  }
  const state = new Map<string, "open" | "done">();
  for (const start of next.keys()) {
    if (state.has(start)) continue;
    state.set(start, "open");
    const stack = [{ id: start, i: 0 }];
    while (stack.length) {
      const top = stack[stack.length - 1];
      const after = next.get(top.id) ?? [];
      if (top.i === after.length) {
        state.set(top.id, "done");
        stack.pop();
        continue;
      }
      const id = after[top.i++];
      // Reached again while on the way: the way from it back here is a cycle.
      if (state.get(id) === "open") return stack.slice(stack.findIndex((f) => f.id === id)).map((f) => f.id);
      if (!state.has(id)) {
        state.set(id, "open");
        stack.push({ id, i: 0 });
      }
    }
  }
  return null;
}

/**
 * No `blocks` cycle among the written edges and the target's own (a new workspace has none; an existing one none
 * either, POST keeps it so): a cycle through a written edge lies in what its target reaches, so that part of the graph
 * is read in one walk (each task once) and searched in memory. The first written edge on a cycle is refused, named as
 * POST names it.
 */
async function refuseBlocksCycle(tx: Tx, reach: Reach, blocks: Array<{ source: string; target: string; at: string }>) {
  if (!blocks.length) return;
  const { rows } = await tx.execute<{ source: string; target: string }>(sql`
    with recursive walk(id) as (
      select unnest(${sql.param(blocks.map((b) => b.target))}::text[])
      union
      select r.target_task_id from walk join ${taskRelations} r on r.source_task_id = walk.id and r.type = 'blocks'
    )
    select source_task_id as source, target_task_id as target from ${taskRelations}
    where type = 'blocks' and source_task_id in (select id from walk)`);
  const cycle = blocksCycle(rows);
  if (!cycle) return;
  const onCycle = new Set(cycle.map((id, i) => `${id} ${cycle[(i + 1) % cycle.length]}`));
  const edge = blocks.find((b) => onCycle.has(`${b.source} ${b.target}`)) ?? blocks[0];
  throw new ValidationError({ [edge.at]: [await cycleMessage(tx, reach, edge.source, edge.target)] });
}

/**
 * One import's relations: both their tasks are written before them. The lock is POST /tasks/{id}/relations's, taken
 * before the first edge: no concurrent edge closes a cycle with these unseen.
 */
function importRelations(context: ImportContext): PartImporter<ExportedRelation> {
  const edges = new Map<string, string>();
  const blocks: Array<{ source: string; target: string; at: string }> = [];
  let locked = false;
  return {
    async page(page, writing) {
      const planned = planRelationPage(context.plan, edges, page);
      if (!writing() || !planned.length) return;
      if (!locked) await lockBlocksGraph(context.tx, context.plan.target.workspaceId);
      locked = true;
      await writeRelations(context, planned);
      for (const { row, at } of planned) if (row.type === "blocks") blocks.push({ source: row.sourceTaskId, target: row.targetTaskId, at });
    },
    finish: () => refuseBlocksCycle(context.tx, context.reach, blocks),
  };
}

export const relationsPart: TransferPart<ExportedRelation> = {
  collection: "relations",
  // The stored edge (`blocked_by` is `blocks` from the other task; `related` is stored once a pair).
  schema: storedRelationRecord.exportSchema<ExportedRelation>("ExportRelation"),
  description: "The relations among the export's tasks (both tasks in it), as stored",
  listed: true,
  export: { table: taskRelations, creator: taskRelations.creatorId, condition: relationCondition, record: storedRelationRecord },
  import: {
    existing: (team, ids) =>
      sql`select id, null from ${taskRelations} where source_team_id = ${team} and target_team_id = ${team} and id = any(${ids})`,
    start: importRelations,
  },
};
