import { and, eq } from "drizzle-orm";
import { labels } from "../../../drizzle/schema";
import { iso } from "../../core/dates";
import { notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import { type ListParams, type ListSpec, pageQuery } from "../../http/list";

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

export const mine = (workspaceId: WorkspaceScope, id: string) => and(eq(labels.workspaceId, workspaceId), eq(labels.id, id));

export async function listLabels(db: Executor, workspaceId: WorkspaceScope, params: ListParams) {
  const rows = await pageQuery(db.select().from(labels).$dynamic(), eq(labels.workspaceId, workspaceId), params);
  return rows.map(serializeLabel);
}

export async function getLabel(db: Executor, workspaceId: WorkspaceScope, id: string) {
  const [row] = await db.select().from(labels).where(mine(workspaceId, id));
  if (!row) throw notFound("Label");
  return serializeLabel(row);
}
