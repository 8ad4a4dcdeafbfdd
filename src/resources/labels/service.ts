import { sql } from "drizzle-orm";
import { labels } from "../../../drizzle/schema";
import { notFound } from "../../core/errors";
import type { Db } from "../../db/client";
import { newId } from "../../ids";
import { mine, serializeLabel } from "./queries";
import type { LabelCreateInput, LabelUpdateInput } from "./schema";

export async function createLabel(db: Db, workspaceId: string, input: LabelCreateInput) {
  const [row] = await db
    .insert(labels)
    .values({ id: newId("label"), workspaceId, name: input.name, color: input.color.toUpperCase() })
    .returning();
  return serializeLabel(row);
}

export async function updateLabel(db: Db, workspaceId: string, id: string, input: LabelUpdateInput) {
  const [row] = await db
    .update(labels)
    .set({ ...input, ...(input.color && { color: input.color.toUpperCase() }), updatedAt: sql`now()` })
    .where(mine(workspaceId, id))
    .returning();
  if (!row) throw notFound("Label");
  return serializeLabel(row);
}

export async function deleteLabel(db: Db, workspaceId: string, id: string) {
  const deleted = await db.delete(labels).where(mine(workspaceId, id)).returning({ id: labels.id });
  if (deleted.length === 0) throw notFound("Label");
}
