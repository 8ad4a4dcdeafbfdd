import { type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { users } from "../../../drizzle/schema";

export type UserSummary = { id: string; name: string; email: string; avatarUrl: string | null; humanId: string | null };

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
