// Worklogs in the export document (src/store/transfer-part.ts): those of the export's tasks, imported as
// POST /tasks/{id}/worklogs stores them.
import { sql } from "drizzle-orm";
import { worklogs } from "../../../drizzle/schema";
import { newId } from "../../ids";
import { insertedPages, type Located, type TransferPart } from "../../store/transfer-part";
import { type ExportedWorklog, worklogRecord } from "./record";

export const worklogsPart: TransferPart<ExportedWorklog> = {
  collection: "worklogs",
  // A worklog's duration and start are checked by the rules POST /tasks/{id}/worklogs checks them with.
  schema: worklogRecord.exportSchema<ExportedWorklog>("ExportWorklog"),
  description: "The worklogs of the export's tasks",
  export: { table: worklogs, creator: worklogs.userId, condition: (scope) => scope.onTasks(worklogs), record: worklogRecord },
  import: {
    existing: (team, ids) => sql`select id, null from ${worklogs} where team_id = ${team} and id = any(${ids})`,
    /**
     * A page of worklogs, after the tasks: each on a task of the export, as POST /tasks/{id}/worklogs stores it (the
     * export's schema checked it with that operation's rules). An author outside the target workspace is kept as none:
     * the time is theirs, not the importer's. The task's estimates travel with the task, so nothing is adjusted. One the
     * target has (its id) stays as it is.
     */
    start: insertedPages(worklogs, (state, page: Located<ExportedWorklog>[]) =>
      page.flatMap(({ record: w, at }) => {
        const task = state.task(w.taskId, `${at}.taskId`);
        if (!task) return [];
        const { id, userId, startedAt, durationSeconds, note } = w;
        return [
          {
            id: state.kept(id) ? id : newId("wlg"),
            taskId: task.id,
            teamId: task.teamId,
            userId: state.user(userId),
            startedAt: new Date(startedAt),
            durationSeconds,
            note,
          },
        ];
      }),
    ),
  },
};
