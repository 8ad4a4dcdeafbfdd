import { type SQL, sql } from "drizzle-orm";
import { labels } from "../../../drizzle/schema";
import { notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import { type LabelOwner, labelLinks } from "./queries";

/**
 * `id, name, color` of the workspace's labels among `labelIds`, as a subquery (a CTE body): a statement that
 * attaches labels compares its row count with the ids it was given, so a foreign or unknown id attaches nothing.
 */
export function workspaceLabels(workspace: WorkspaceScope, labelIds: string[]): SQL {
  const ids = labelIds.length
    ? sql.join(
        labelIds.map((id) => sql`${id}`),
        sql`, `,
      )
    : sql`null`;
  return sql`select ${labels.id} as id, ${labels.name} as name, ${labels.color} as color from ${labels} where ${labels.workspaceId} = ${workspace} and ${labels.id} in (${ids})`;
}

/**
 * Makes `labelIds` the exact label set of a task or project in ONE statement: it keeps the ones already
 * attached, attaches the new ones and detaches the rest, using only labels of the workspace. When any id is
 * unknown or foreign it throws NOT_FOUND, and the caller's transaction rolls the whole write back.
 */
export async function setLabels(tx: Executor, owner: LabelOwner, ownerId: string, workspaceId: string, labelIds: string[]): Promise<void> {
  const unique = [...new Set(labelIds)];
  const { table: join, owner: joinOwner } = labelLinks(owner);
  const result = await tx.execute<{ found: number }>(sql`
    with valid as (${workspaceLabels(workspaceId, unique)}), detached as (
      delete from ${join} where ${joinOwner} = ${ownerId} and ${join.labelId} not in (select id from valid)
    ), attached as (
      insert into ${join} select ${ownerId}, id from valid on conflict do nothing
    )
    select count(*)::int as found from valid`);
  if (Number(result.rows[0]?.found ?? 0) !== unique.length) throw notFound("Label");
}
