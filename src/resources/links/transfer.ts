// A task's URL links in the export document (src/store/transfer-part.ts): those of the export's tasks, imported by the
// rules of POST /tasks/{id}/links.
import { sql } from "drizzle-orm";
import { taskLinks } from "../../../drizzle/schema";
import { newId } from "../../ids";
import { insertedPages, type Located, type TransferPart } from "../../store/transfer-part";
import { type ExportedLink, linkRecord, normalizedUrl } from "./record";

export const linksPart: TransferPart<ExportedLink> = {
  collection: "links",
  // The document's order (its module comes after the attachments' in the list of modules).
  before: "attachments",
  // A link's URL is checked by the rule POST /tasks/{id}/links checks it with.
  schema: linkRecord.exportSchema<ExportedLink>("ExportLink"),
  description: "The links of the export's tasks",
  listed: true,
  export: { table: taskLinks, creator: taskLinks.createdBy, condition: (scope) => scope.onTasks(taskLinks), record: linkRecord },
  import: {
    existing: (team, ids) => sql`select id, null from ${taskLinks} where team_id = ${team} and id = any(${ids})`,
    /**
     * A page of links, after the tasks: on a task of the export, the URL as POST /tasks/{id}/links stores it (the
     * export's schema checked it with the same rule). Links never change: one the target has (its id, or its task's
     * URL: the same URL twice on a task is one link) stays as it is, as POST answers it.
     */
    start: insertedPages(taskLinks, (state, page: Located<ExportedLink>[]) =>
      page.flatMap(({ record: l, at }) => {
        const task = state.task(l.taskId, `${at}.taskId`);
        if (!task) return [];
        return [
          {
            id: state.kept(l.id) ? l.id : newId("lnk"),
            taskId: task.id,
            teamId: task.teamId,
            url: normalizedUrl(l.url),
            title: l.title,
            createdBy: state.user(l.createdBy) ?? state.target.callerId,
          },
        ];
      }),
    ),
  },
};
