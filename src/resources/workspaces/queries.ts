import { and, eq, type SQL } from "drizzle-orm";
import { workspaceMembers, workspaces } from "../../../drizzle/schema";
import { notFound } from "../../core/errors";
import type { Executor } from "../../db/client";
import { type ListParams, type ListSpec, pageQuery } from "../../http/list";
import { serializeWorkspace } from "../users/schema";

export const workspaceList: ListSpec = {
  resource: "workspaces",
  id: workspaces.id,
  fields: {
    id: { expr: workspaces.id, kind: "id" },
    name: { expr: workspaces.name, kind: "string" },
    slug: { expr: workspaces.slug, kind: "string" },
    createdAt: { expr: workspaces.createdAt, kind: "datetime" },
    updatedAt: { expr: workspaces.updatedAt, kind: "datetime" },
  },
  shape: { id: true, name: true, slug: true, createdAt: true, updatedAt: true },
};

const memberships = (db: Executor) =>
  db
    .select({
      id: workspaces.id,
      name: workspaces.name,
      slug: workspaces.slug,
      createdAt: workspaces.createdAt,
      updatedAt: workspaces.updatedAt,
    })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId));

// `user`: the caller's id, or (for a read that authenticates itself) the credential's user as a subquery.

/** One page (limit + 1 rows) of the workspaces the user is a member of. */
export async function listWorkspaces(db: Executor, user: string | SQL<string>, params: ListParams) {
  const rows = await pageQuery(memberships(db).$dynamic(), eq(workspaceMembers.userId, user), params);
  return rows.map(serializeWorkspace);
}

/** A workspace the user is a member of; any other is NOT_FOUND (its existence is not revealed). */
export async function getWorkspace(db: Executor, user: string | SQL<string>, id: string) {
  const [row] = await memberships(db).where(and(eq(workspaceMembers.userId, user), eq(workspaceMembers.workspaceId, id)));
  if (!row) throw notFound("Workspace");
  return serializeWorkspace(row);
}
