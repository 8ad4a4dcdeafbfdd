// A team's cycles in the export document (src/store/transfer-part.ts): a team's or workspace's cycles, or those the
// exported tasks are in, each with the ids of its exported tasks (`taskIds`). An import, after the tasks, makes each
// cycle in its team with the next number of the team's counter (an overwritten one keeps its own; one of the same dates
// as a cycle the team has is that cycle) and puts its tasks in it; a cycle that overlaps another of the target team's
// is refused as POST /cycles refuses it (422 at `startsAt`).
import { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { cycles, tasks, teams } from "../../../drizzle/schema";
import { newId } from "../../ids";
import { BodyId } from "../../store/schemas";
import type { ExportScope, Located, TransferPart } from "../../store/transfer-part";
import { cycleRecord, type ExportedCycle } from "./record";

type Exported = ExportedCycle & { taskIds: string[] };

/** The cycles an export holds: its team's, the workspace's, or those its tasks are in. */
function held(scope: ExportScope) {
  const of = {
    workspace: sql`exists (select 1 from root)`,
    team: sql`${cycles.teamId} = ${scope.root}`,
    project: sql`${cycles.id} in (select t.cycle_id from ${tasks} t where t.id in ${scope.tasks})`,
    task: sql`${cycles.id} in (select t.cycle_id from ${tasks} t where t.id in ${scope.tasks})`,
  };
  return sql`${cycles.workspaceId} = ${scope.workspace} and ${of[scope.type]}`;
}

export const cyclesPart: TransferPart<Exported> = {
  collection: "cycles",
  schema: z
    .object({ ...cycleRecord.exportShape(), taskIds: z.array(BodyId).max(100_000).default([]) })
    .strict()
    .openapi("ExportCycle") as unknown as z.ZodType<Exported>,
  description: "The teams' cycles (or those of the export's tasks), each with its exported tasks' ids",
  listed: true,
  export: {
    table: cycles,
    condition: held,
    // The record, and the ids of its tasks that the export holds (the export statement's `scope_tasks`).
    record: {
      exportJson: () =>
        sql`((${cycleRecord.exportJson()})::jsonb || jsonb_build_object('taskIds', (select coalesce(array_agg(t.id order by t.id), '{}')
          from ${tasks} t where t.cycle_id = ${cycles.id} and t.id in (select id from scope_tasks))))`,
    },
  },
  import: {
    existing: (team, ids) => sql`select id, null from ${cycles} where team_id = ${team} and id = any(${ids})`,
    start: ({ tx, plan }) => ({
      async page(page: Located<Exported>[], writing) {
        const rows = page.map(({ record: c, at }) => {
          const teamId = plan.teamOf(c.teamId, `${at}.teamId`);
          const taskIds = c.taskIds.flatMap((id, i) => {
            const task = plan.task(id, `${at}.taskIds.${i}`);
            if (task && task.teamId !== teamId) plan.fail(`${at}.taskIds.${i}`, "Must be a task of the cycle's team");
            return task ? [task.id] : [];
          });
          return { id: plan.kept(c.id) ? c.id : newId("cyc"), teamId, taskIds, c };
        });
        if (!writing()) return;
        for (const { id, teamId, taskIds, c } of rows) {
          const [startsAt, endsAt] = [sql`${c.startsAt}::timestamptz`, sql`${c.endsAt}::timestamptz`];
          // Overwritten: its fields as exported. New: the team's cycle of the same dates if it has one (an export into
          // the team it came from), else a new cycle with the team's next number.
          const ctes = plan.kept(c.id)
            ? sql`cycle as (update ${cycles} set name = ${c.name}, description = ${c.description}, starts_at = ${startsAt},
                ends_at = ${endsAt}, updated_at = now() where id = ${id} returning id)`
            : sql`same as (select id from ${cycles} where team_id = ${teamId} and starts_at = ${startsAt} and ends_at = ${endsAt}),
                counter as (update ${teams} set cycle_counter = cycle_counter + 1 where id = ${teamId} and not exists (select 1 from same)
                  returning cycle_counter),
                made as (insert into ${cycles} (id, workspace_id, team_id, number, name, description, starts_at, ends_at)
                  select ${id}, ${plan.target.workspaceId}, ${teamId}, counter.cycle_counter, ${c.name}, ${c.description}, ${startsAt},
                    ${endsAt} from counter returning id),
                cycle as (select id from made union all select id from same)`;
          await tx.execute(
            sql`with ${ctes} update ${tasks} set cycle_id = (select id from cycle limit 1) where id = any(${sql.param(taskIds)}::text[])`,
          );
        }
      },
    }),
  },
};
