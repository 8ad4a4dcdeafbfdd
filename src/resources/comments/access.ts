import { type Access, callerTeamRole, rowForCaller } from "../../auth/access";
import type { Principal } from "../../auth/principal";
import type { Executor } from "../../db/client";
import { TARGET_NAME, type Target, targetSelect } from "./targets";

/** The target (locked against deletion) after checking the caller may act in its team as `access` says (contract §4). */
export function writableTarget(tx: Executor, principal: Principal, target: Target, access: Access) {
  const found = tx.$with("target").as(targetSelect(tx, principal.workspace.id, target, true));
  const query = tx
    .with(found)
    .select({ id: found.id, callerRole: callerTeamRole(principal.user.id, found.teamId) })
    .from(found)
    .$dynamic();
  return rowForCaller(principal, query, { name: TARGET_NAME[target.kind] }, access);
}
