// The OAuth grant operations, one function each: the caller's own grants in the current workspace (a pending code is
// not a grant yet). Revoking one is auth/accounts/credentials.ts's, which the account page shares.

import { grantsOf } from "../../auth/accounts/credentials";
import type { Caller } from "../../auth/caller";
import type { ListParams } from "../../store/list";
import { listRecords } from "../../store/reads";
import { type OAuthGrant, oauthGrantRecord } from "./record";

/** GET /oauth/grants: one page of the caller's grants. */
export function listOAuthGrants(caller: Caller, params: ListParams): Promise<OAuthGrant[]> {
  return listRecords(caller, oauthGrantRecord, params, grantsOf);
}

export { deleteOAuthGrant } from "../../auth/accounts/credentials";
