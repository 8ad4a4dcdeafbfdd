// The link operations (docs/api.md, "Links"), one function each, called alike by the REST routes and the MCP tool. Each
// is one statement that authenticates and authorizes itself: a create under the task write rule (the same URL again
// answers the link the task has, whoever races it), a delete under the same rule on the link's task, a list in one query.
import { and, eq, sql } from "drizzle-orm";
import { taskLinks, tasks } from "../../../drizzle/schema";
import { taskTarget, taskWriteGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { newId } from "../../ids";
import { listTaskChildren } from "../../records/task-children";
import { guardedDelete, guardedWrite, type Target } from "../../store/guarded";
import type { ListParams } from "../../store/list";
import { linkRecord, normalizedUrl, type TaskLinkCreateInput, type TaskLinkDto } from "./record";

/**
 * POST /tasks/{id}/links: by a caller who may change the task. ONE statement: the insert, or, when the task has the URL
 * already (the unique key, also against a concurrent insert, whose commit it waits for), that link as it is: `created`
 * says which.
 */
export function addLink(caller: Caller, idOrRef: string, input: TaskLinkCreateInput): Promise<{ link: TaskLinkDto; created: boolean }> {
  const id = newId("lnk");
  return guardedWrite(caller, taskTarget(caller, idOrRef), (allowed) => ({
    ctes: [
      // Named like the table, so the answer's JSON reads the written row. The no-op update returns the row it kept,
      // which DO NOTHING would not (nor would a read in this statement see another transaction's just-committed row).
      sql`task_links as (insert into ${taskLinks} (id, workspace_id, team_id, task_id, url, title, created_by)
        select ${id}, ${tasks.workspaceId}, ${tasks.teamId}, ${tasks.id}, ${normalizedUrl(input.url)}, ${input.title ?? null},
          ${caller.actor.user}
        from ${tasks} where ${tasks.id} = ${allowed}
        on conflict (task_id, url) do update set url = excluded.url
        returning *, (xmax = 0) as created)`,
    ],
    result: sql`(select json_build_object('link', ${linkRecord.json()}, 'created', task_links.created) from task_links)`,
  }));
}

/** The link `id` in the caller's workspace and teams, under the task write rule on its task's team. */
function linkTarget(caller: Caller, id: string): Target {
  return {
    from: sql`${taskLinks}`,
    where: and(eq(taskLinks.workspaceId, caller.actor.workspace), eq(taskLinks.id, id))!,
    columns: { id: taskLinks.id },
    guards: [taskWriteGuard(caller.actor, taskLinks.teamId)],
    name: "Link",
    team: taskLinks.teamId,
    table: taskLinks,
  };
}

/** DELETE /links/{id}: one statement. */
export async function deleteLink(caller: Caller, id: string): Promise<void> {
  await guardedDelete(caller, linkTarget(caller, id), taskLinks);
}

/** GET /tasks/{id}/links: one query. */
export function listLinks(caller: Caller, idOrRef: string, params: ListParams): Promise<TaskLinkDto[]> {
  return listTaskChildren(caller, idOrRef, params, { record: linkRecord, from: taskLinks, taskId: taskLinks.taskId });
}
