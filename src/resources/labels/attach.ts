import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { labels, projectLabels, taskLabels } from "../../../drizzle/schema";
import type { Executor } from "../../db/client";
import { notFound } from "../../http/errors";

type LabelSummary = { id: string; name: string; color: string };

/** Labels of a task or project as a JSON array built in SQL (one query for a whole page, no query per row). */
export function labelsJson(owner: "task" | "project", ownerId: AnyPgColumn): SQL<LabelSummary[]> {
  const join = owner === "task" ? taskLabels : projectLabels;
  const joinOwner = owner === "task" ? taskLabels.taskId : projectLabels.projectId;
  return sql<LabelSummary[]>`coalesce((select json_agg(json_build_object('id', ${labels.id}, 'name', ${labels.name}, 'color', ${labels.color}) order by ${labels.name}, ${labels.id}) from ${join} join ${labels} on ${labels.id} = ${join.labelId} where ${joinOwner} = ${ownerId}), '[]'::json)`;
}

/** Checks that every label id is in the workspace (a foreign or unknown one is NOT_FOUND). */
export async function assertLabelsInWorkspace(tx: Executor, workspaceId: string, labelIds: string[]): Promise<void> {
  const unique = [...new Set(labelIds)];
  if (unique.length === 0) return;
  const found = await tx
    .select({ id: labels.id })
    .from(labels)
    .where(and(eq(labels.workspaceId, workspaceId), inArray(labels.id, unique)));
  if (found.length !== unique.length) {
    const ok = new Set(found.map((l) => l.id));
    throw notFound(`Label ${unique.find((id) => !ok.has(id))}`);
  }
}

/** Replaces the labels of a task or project (ids already checked with assertLabelsInWorkspace). */
export async function replaceLabels(tx: Executor, owner: "task" | "project", ownerId: string, labelIds: string[]): Promise<void> {
  const unique = [...new Set(labelIds)];
  if (owner === "task") {
    await tx.delete(taskLabels).where(eq(taskLabels.taskId, ownerId));
    if (unique.length) await tx.insert(taskLabels).values(unique.map((labelId) => ({ taskId: ownerId, labelId })));
  } else {
    await tx.delete(projectLabels).where(eq(projectLabels.projectId, ownerId));
    if (unique.length) await tx.insert(projectLabels).values(unique.map((labelId) => ({ projectId: ownerId, labelId })));
  }
}
