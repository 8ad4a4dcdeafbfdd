// Workflow states in the export document (src/store/transfer-part.ts): those of the teams the export's records are in.
// An import writes them before the tasks, whose statuses name them: into an existing team, the keys it lacks (its own
// states stay as they are); into a workspace import's new teams, the document's states replace the defaults those
// teams started with. A document from before states travelled has none: each team keeps its states, and a task's
// status the team lacks is created by the trigger (migrations/functions/pm_task_state.sql, in an import only).
import { sql } from "drizzle-orm";
import { tasks, workflowStates } from "../../../drizzle/schema";
import { newId } from "../../ids";
import type { Located, TransferPart } from "../../store/transfer-part";
import { type ExportedState, stateRecord } from "./record";

export const statesPart: TransferPart<ExportedState> = {
  collection: "states",
  beforeTasks: true,
  schema: stateRecord.exportSchema<ExportedState>("ExportState"),
  description:
    "The workflow states of the teams the export's records are in; an import into a team creates the keys it lacks, a workspace import the teams' own",
  export: {
    table: workflowStates,
    creator: workflowStates.creatorId,
    condition: (scope) => sql`${workflowStates.workspaceId} = ${scope.workspace} and ${workflowStates.teamId} in ${scope.teams}`,
    record: stateRecord,
  },
  import: {
    start({ tx, plan }) {
      // A workspace import's teams are new: their states become the document's (the defaults they lack go at the end).
      const replacing = plan.target.teamId === undefined;
      const keys = new Map<string, Set<string>>();
      return {
        async page(page: Located<ExportedState>[], writing) {
          const rows = page.map(({ record: s, at }) => {
            const teamId = plan.teamOf(s.teamId, `${at}.teamId`);
            keys.set(teamId, (keys.get(teamId) ?? new Set()).add(s.key));
            const { key, name, category, position, color, description } = s;
            return { id: newId("sta"), teamId, key, name, category, position, color, description };
          });
          if (!writing() || rows.length === 0) return;
          await tx.execute(sql`insert into ${workflowStates} (id, workspace_id, team_id, key, name, category, position, color, description)
            select r.id, ${plan.target.workspaceId}, r."teamId", r.key, r.name, r.category, r.position, r.color, r.description
            from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id text, "teamId" text, key text, name text,
              category state_category, position float8, color text, description text)
            ${
              replacing
                ? sql`on conflict (team_id, key) do update set name = excluded.name, category = excluded.category,
                    position = excluded.position, color = excluded.color, description = excluded.description, updated_at = now()`
                : sql`on conflict do nothing`
            }`);
        },
        async finish() {
          if (!replacing) return;
          for (const [teamId, kept] of keys) {
            await tx.execute(sql`delete from ${workflowStates} as w where w.team_id = ${teamId} and w.key <> all(${sql.param([...kept])}::text[])
              and not exists (select 1 from ${tasks} as t where t.team_id = w.team_id and t.status = w.key)`);
          }
        },
      };
    },
  },
};
