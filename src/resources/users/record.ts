// The user records: a user (User, as `/me` answers it), a member of the current workspace with their role
// (WorkspaceUser, `/users`), one field map each; and a user as other records embed it (`<user-summary>`: an assignee,
// a lead, an author, an inviter).
import { z } from "@hono/zod-openapi";
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { notificationEmail, users, userType, workspaceMembers, workspaceRole } from "../../../drizzle/schema";
import { notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import { named, namesAny, pathNames } from "../../records/names";
import { defineRecord, f } from "../../store/field-map";
import type { FieldShape } from "../../store/list";
import { BodyId } from "../../store/schemas";

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

/** The users table or an alias of it (`alias(users, "lead")`). */
type UserColumns = Record<"id" | "name" | "email" | "avatarUrl" | "humanId", AnyPgColumn>;

/**
 * `<user-summary>` built in SQL, for embedding a user in a row of another table without a query per row
 * (e.g. `assignee: userSummaryJson(assigneeAlias)`); null when the joined user is null.
 */
export function userSummaryJson(u: UserColumns = users): SQL<UserSummary | null> {
  return sql<UserSummary | null>`case when ${u.id} is null then null else json_build_object('id', ${u.id}, 'name', ${u.name}, 'email', ${u.email}, 'avatarUrl', ${u.avatarUrl}, 'humanId', ${u.humanId}) end`;
}

/** A user a request body names (id or email) must be a member of the caller's workspace (NOT_FOUND otherwise): their id. */
export async function workspaceMember(db: Executor, workspaceId: WorkspaceScope, idOrEmail: string, what = "User"): Promise<string> {
  const [row] = await db
    .select({ userId: workspaceMembers.userId })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), namesAny("user", workspaceMembers.userId, [idOrEmail])))
    .limit(1);
  if (!row) throw notFound(what);
  return row.userId;
}

/** A person's or an agent's name, as signup, an invite, a rename, POST /agents and an import take it. */
export const UserName = z.string().trim().min(1).max(200);

/** A user's own fields, with the schemas an import checks them with (an export's `users`). */
const userFields = {
  id: f.id(users.id, { names: named("user"), exported: BodyId }),
  name: f.text(users.name, { exported: UserName }),
  email: f.text(users.email, { exported: z.string().max(320) }),
  avatarUrl: f.text(users.avatarUrl, { nullable: true, list: false, exported: z.string().max(2048).nullable() }),
  humanId: f.id(users.humanId, { names: named("user"), nullable: true }),
  type: f.enum(users.type, z.enum(userType.enumValues), { exported: true }),
  handle: f.text(users.handle, { doc: { description: "How a mention names the user (`@handle`); unique, lower-case", example: "ann" } }),
};

/** A handle as PATCH /users/{id} takes it (docs/api.md, "Inbox"), stored lower-cased. */
const Handle = z
  .string()
  .max(39)
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9-]{0,38}$/, "Must be 1..39 letters, digits or -, starting with a letter or digit");
const NotificationEmail = z.enum(notificationEmail.enumValues);

export const userRecord = defineRecord({
  name: "User",
  resource: "users",
  id: users.id,
  team: null,
  from: sql`${users}`,
  fields: userFields,
});
export const UserSchema = userRecord.schema;
export type UserDto = z.infer<typeof UserSchema>;

const WorkspaceRole = z.enum(workspaceRole.enumValues);

/**
 * A user as a member of the current workspace (GET/PATCH /users): the User fields, the workspace `role`, and
 * `createdAt`, when the account was created (for an agent: when its owner created it).
 */
export const workspaceUserRecord = defineRecord({
  name: "WorkspaceUser",
  noun: "User",
  resource: "users",
  id: users.id,
  workspace: workspaceMembers.workspaceId,
  team: null,
  // By id or email (docs/api.md, "Ids and names"), among the members of the caller's workspace (its join with the membership).
  ...pathNames("user", users.id),
  from: sql`${workspaceMembers} join ${users} on ${users.id} = ${workspaceMembers.userId}`,
  fields: {
    ...userFields,
    name: { ...userFields.name, input: { schema: UserName } },
    avatarUrl: {
      ...userFields.avatarUrl,
      input: {
        schema: z
          .url({ protocol: /^https?$/, error: "Must be an http(s) URL" })
          .max(2048)
          .nullable(),
      },
    },
    handle: { ...userFields.handle, input: { schema: Handle } },
    notificationEmail: f.enum(users.notificationEmail, NotificationEmail, {
      input: { schema: NotificationEmail },
      doc: { description: "Which notifications also come by email: off, mentions (the default) or all" },
    }),
    role: f.enum(workspaceMembers.role, WorkspaceRole, {
      input: { schema: WorkspaceRole, write: "resolved" },
      doc: { description: "The user's role in the current workspace" },
    }),
    createdAt: f.datetime(users.createdAt, { doc: { description: "When the account was created" } }),
  },
});

export const WorkspaceUserSchema = workspaceUserRecord.schema.openapi({
  description: "`humanId` names the owning human of an agent (null for a human); an agent's `email` is `<agent id>@agents.pm.invalid`.",
});
export type WorkspaceUser = z.infer<typeof WorkspaceUserSchema>;
/** What GET /users and /users/{id} answer: the WorkspaceUser narrowed by `fields`. */
export const WorkspaceUserSelection = workspaceUserRecord.selection;

export const UserUpdate = z.object(workspaceUserRecord.inputShape()).partial().strict().openapi("UserUpdate", {
  description:
    "Partial. `name`, `avatarUrl` (null clears it), `handle` (409 when taken) and `notificationEmail` only on yourself or your own agent; `role` needs workspace ADMIN/OWNER.",
});
export interface UserUpdateInput {
  name?: string;
  handle?: string;
  notificationEmail?: z.infer<typeof NotificationEmail>;
  avatarUrl?: string | null;
  role?: z.infer<typeof WorkspaceRole>;
}
