// A user as other records embed it (`<user-summary>`: an assignee, a lead, an author, an inviter).
import { z } from "@hono/zod-openapi";
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { users, workspaceMembers } from "../../drizzle/schema";
import { notFound } from "../core/errors";
import type { Executor, WorkspaceScope } from "../db/client";
import type { FieldShape } from "../http/list";

export const UserSummarySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    avatarUrl: z.string().nullable(),
    humanId: z.string().nullable(),
  })
  .openapi("UserSummary");

export type UserSummary = z.infer<typeof UserSummarySchema>;
export const userSummaryShape: FieldShape = { id: true, name: true, email: true, avatarUrl: true, humanId: true };

export const userSummary = (u: UserSummary): UserSummary => ({
  id: u.id,
  name: u.name,
  email: u.email,
  avatarUrl: u.avatarUrl,
  humanId: u.humanId,
});

/** The users table or an alias of it (`alias(users, "lead")`). */
type UserColumns = Record<"id" | "name" | "email" | "avatarUrl" | "humanId", AnyPgColumn>;

/**
 * `<user-summary>` built in SQL, for embedding a user in a row of another table without a query per row
 * (e.g. `assignee: userSummaryJson(assigneeAlias)`); null when the joined user is null.
 */
export function userSummaryJson(u: UserColumns = users): SQL<UserSummary | null> {
  return sql<UserSummary | null>`case when ${u.id} is null then null else json_build_object('id', ${u.id}, 'name', ${u.name}, 'email', ${u.email}, 'avatarUrl', ${u.avatarUrl}, 'humanId', ${u.humanId}) end`;
}

/** A user id from a request body must name a member of the caller's workspace; anything else is NOT_FOUND. */
export async function assertWorkspaceMember(db: Executor, workspaceId: WorkspaceScope, userId: string, what = "User"): Promise<void> {
  const [row] = await db
    .select({ userId: workspaceMembers.userId })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .limit(1);
  if (!row) throw notFound(what);
}
