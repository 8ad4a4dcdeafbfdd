import { and, eq, sql } from "drizzle-orm";
import { labels } from "../../../drizzle/schema";
import type { Db, WorkspaceScope } from "../../db/client";
import { notFound } from "../../core/errors";
import type { ListParams, ListSpec } from "../../http/list";
import { iso } from "../../core/dates";
import { newId } from "../../ids";
import type { LabelCreateInput, LabelUpdateInput } from "./schema";

type LabelRow = typeof labels.$inferSelect;
export const serializeLabel = (l: LabelRow) => ({
  id: l.id,
  name: l.name,
  color: l.color,
  createdAt: iso(l.createdAt),
  updatedAt: iso(l.updatedAt),
});

export const labelList: ListSpec = {
  resource: "labels",
  id: labels.id,
  fields: {
    id: { expr: labels.id, kind: "id" },
    name: { expr: labels.name, kind: "string" },
    color: { expr: labels.color, kind: "string" },
    createdAt: { expr: labels.createdAt, kind: "datetime" },
    updatedAt: { expr: labels.updatedAt, kind: "datetime" },
  },
  shape: { id: true, name: true, color: true, createdAt: true, updatedAt: true },
};

const mine = (workspaceId: WorkspaceScope, id: string) => and(eq(labels.workspaceId, workspaceId), eq(labels.id, id));

export async function listLabels(db: Db, workspaceId: WorkspaceScope, params: ListParams) {
  const rows = await db
    .select()
    .from(labels)
    .where(and(eq(labels.workspaceId, workspaceId), params.where))
    .orderBy(...params.orderBy)
    .limit(params.limit + 1);
  return rows.map(serializeLabel);
}

export async function getLabel(db: Db, workspaceId: WorkspaceScope, id: string) {
  const [row] = await db.select().from(labels).where(mine(workspaceId, id));
  if (!row) throw notFound("Label");
  return serializeLabel(row);
}

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
