import { sql } from "drizzle-orm";
import { teams } from "../../../drizzle/schema";
import { invalid, notFound } from "../../core/errors";
import type { Executor } from "../../db/client";

/**
 * `parentId` must be a team of the workspace (NOT_FOUND otherwise) and must not be `teamId` or one of its
 * descendants (422): one recursive query walks up from the proposed parent and looks for `teamId` on the way.
 */
export async function assertValidParent(tx: Executor, workspaceId: string, teamId: string, parentId: string): Promise<void> {
  const { rows } = await tx.execute<{ found: boolean; cycle: boolean }>(sql`
    with recursive chain(id, parent_id) as (
      select ${teams.id}, ${teams.parentId} from ${teams} where ${teams.workspaceId} = ${workspaceId} and ${teams.id} = ${parentId}
      union
      select ${teams.id}, ${teams.parentId} from ${teams} join chain on ${teams.id} = chain.parent_id where ${teams.workspaceId} = ${workspaceId}
    )
    select exists(select 1 from chain) as found, exists(select 1 from chain where id = ${teamId}) as cycle`);
  if (!rows[0]?.found) throw notFound("Parent team");
  if (rows[0].cycle) throw invalid("parentId", "A team cannot be nested under itself or one of its sub-teams");
}
