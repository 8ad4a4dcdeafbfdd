import { and, sql } from "drizzle-orm";
import { labels } from "../../../drizzle/schema";
import { LABEL_EDIT_REFUSAL, mayEditLabel } from "../../auth/ownership";
import { type Actor, type Principal, principalActor } from "../../auth/principal";
import { conflict, forbidden, notFound } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import { newId } from "../../ids";
import { mine, serializeLabel } from "./queries";
import type { LabelCreateInput, LabelUpdateInput } from "./schema";

/** Any workspace member creates a label (contract §4); its creator may later change or delete it (mayEditLabel). */
export async function createLabel(db: Db, principal: Principal, input: LabelCreateInput) {
  const [row] = await db
    .insert(labels)
    .values({
      id: newId("label"),
      workspaceId: principal.workspace.id,
      creatorId: principal.user.id,
      name: input.name,
      color: input.color.toUpperCase(),
    })
    .returning();
  return serializeLabel(row);
}

/** Why a guarded label write matched no row, from the rule itself: 404 (missing or foreign), 403, else a race (409). */
async function refuse(db: Executor, actor: Actor, id: string): Promise<never> {
  const [found] = await db
    .select({ allowed: sql<boolean>`coalesce(${mayEditLabel(actor)}, false)` })
    .from(labels)
    .where(mine(actor.workspace, id));
  if (!found) throw notFound("Label");
  throw found.allowed ? conflict("The label changed meanwhile; retry the request") : forbidden(LABEL_EDIT_REFUSAL);
}

export async function updateLabel(db: Db, principal: Principal, id: string, input: LabelUpdateInput) {
  const actor = principalActor(principal);
  const [row] = await db
    .update(labels)
    .set({ ...input, ...(input.color && { color: input.color.toUpperCase() }), updatedAt: sql`now()` })
    .where(and(mine(actor.workspace, id), mayEditLabel(actor)))
    .returning();
  return row ? serializeLabel(row) : refuse(db, actor, id);
}

export async function deleteLabel(db: Db, principal: Principal, id: string) {
  const actor = principalActor(principal);
  const deleted = await db
    .delete(labels)
    .where(and(mine(actor.workspace, id), mayEditLabel(actor)))
    .returning({ id: labels.id });
  if (deleted.length === 0) await refuse(db, actor, id);
}
