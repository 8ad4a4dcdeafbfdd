// The OAuth grant operations, one function each: the caller's own grants in the current workspace (a pending code is
// not a grant yet).
import { and, eq, type SQL, sql } from "drizzle-orm";
import { oauthGrants } from "../../../drizzle/schema";
import type { Caller } from "../../auth/caller";
import { type OAuthGrant, oauthGrantRecord } from "../../records/oauth-grants";
import type { Actor } from "../../store/caller";
import { guardedDelete } from "../../store/guarded";
import type { ListParams } from "../../store/list";
import { listRecords } from "../../store/reads";

const grantsOf = ({ workspace, user }: Pick<Actor, "workspace" | "user">): SQL =>
  and(eq(oauthGrants.workspaceId, workspace), eq(oauthGrants.userId, user), sql`${oauthGrants.codeChallenge} is null`)!;

/** GET /oauth/grants: one page of the caller's grants. */
export function listOAuthGrants(caller: Caller, params: ListParams): Promise<OAuthGrant[]> {
  return listRecords(caller, oauthGrantRecord, params, grantsOf);
}

/** DELETE /oauth/grants/{id}: one of the caller's grants (anything else: 404); its tokens are 401 from the next request on. */
export async function deleteOAuthGrant(caller: Caller, id: string): Promise<void> {
  const target = {
    from: sql`${oauthGrants}`,
    where: and(eq(oauthGrants.id, id), grantsOf(caller.actor))!,
    columns: { id: oauthGrants.id },
    guards: [],
    name: "OAuth grant",
    team: null,
  };
  await guardedDelete(caller, target, oauthGrants);
}
