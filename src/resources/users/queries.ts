import { and, eq } from "drizzle-orm";
import { users, workspaceMembers } from "../../../drizzle/schema";
import { iso } from "../../core/dates";
import { notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import { type ListParams, type ListSpec, pageQuery } from "../../http/list";
import type { WorkspaceUser } from "./schema";

const ROLES = ["MEMBER", "ADMIN", "OWNER"] as const;

/** Columns of a WorkspaceUser: workspace_members joined with users. */
const workspaceUserColumns = {
  id: users.id,
  name: users.name,
  email: users.email,
  avatarUrl: users.avatarUrl,
  humanId: users.humanId,
  type: users.type,
  role: workspaceMembers.role,
  createdAt: users.createdAt,
};

const serializeWorkspaceUser = (row: Omit<WorkspaceUser, "createdAt"> & { createdAt: Date }): WorkspaceUser => ({
  ...row,
  createdAt: iso(row.createdAt),
});

export const userList: ListSpec = {
  resource: "users",
  id: users.id,
  fields: {
    id: { expr: users.id, kind: "id" },
    name: { expr: users.name, kind: "string" },
    email: { expr: users.email, kind: "string" },
    humanId: { expr: users.humanId, kind: "id", nullable: true },
    type: { expr: users.type, kind: "enum", values: ["HUMAN", "AGENT"] },
    role: { expr: workspaceMembers.role, kind: "enum", values: ROLES },
    createdAt: { expr: users.createdAt, kind: "datetime" },
  },
  shape: Object.fromEntries(Object.keys(workspaceUserColumns).map((key) => [key, true])),
};

const members = (db: Executor) =>
  db.select(workspaceUserColumns).from(workspaceMembers).innerJoin(users, eq(users.id, workspaceMembers.userId));

/** One page (limit + 1 rows) of the workspace's members. */
export async function listUsers(db: Executor, workspaceId: WorkspaceScope, params: ListParams) {
  const rows = await pageQuery(members(db).$dynamic(), eq(workspaceMembers.workspaceId, workspaceId), params);
  return rows.map(serializeWorkspaceUser);
}

/** A member of the workspace; anyone else (unknown, or only in another workspace) is NOT_FOUND. */
export async function getUser(db: Executor, workspaceId: WorkspaceScope, id: string) {
  const [row] = await members(db).where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, id)));
  if (!row) throw notFound("User");
  return serializeWorkspaceUser(row);
}
