import { fieldDefinitions } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import { requireWorkspaceRole } from "../../auth/roles";
import { notFound } from "../../core/errors";
import type { Executor } from "../../db/client";
import { mine } from "./queries";

/** Field definitions shape every record of the workspace: only its ADMINs and OWNERs change them (403); everyone reads. */
export const requireFieldAdmin = (principal: Principal) => requireWorkspaceRole(principal, "ADMIN", "change custom fields");

/**
 * The caller's definition, locked for a change (NOT_FOUND when missing or foreign). Writes of values share-lock the
 * definitions they check (validateCustomFields), so the change waits for them and then sees their values.
 */
export async function fieldForChange(tx: Executor, principal: Principal, id: string) {
  requireFieldAdmin(principal);
  const [row] = await tx.select().from(fieldDefinitions).where(mine(principal.workspace.id, id)).for("update");
  if (!row) throw notFound("Field");
  return row;
}
