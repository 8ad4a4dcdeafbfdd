// The workspace-member operations, one function each. Each write is one statement that authenticates and authorizes
// itself and says why it wrote nothing (guardedWrite); the last-OWNER rule is one of its guards, read under a lock.
import { and, type SQL, sql } from "drizzle-orm";
import { teamMembers, users, workspaceMembers } from "../../../drizzle/schema";
import { unboundGuard, workspaceGrantGuard, workspaceRoleGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { conflict, forbidden } from "../../core/errors";
import { type Guard, guardedWrite, type Target } from "../../store/guarded";
import type { FieldSelection, ListParams } from "../../store/list";
import { listRecords, readRecord } from "../../store/reads";
import { type UserUpdateInput, type WorkspaceUser, workspaceUserRecord } from "./record";

/** The member `id` (or email) of the caller's workspace, with the guards of the write on it. */
function memberTarget(caller: Caller, id: string, guards: Guard[]): Target {
  return {
    from: workspaceUserRecord.from,
    where: workspaceUserRecord.named({ workspace: caller.actor.workspace, teams: null }, id),
    columns: { id: users.id },
    guards,
    name: "User",
    team: null,
    table: workspaceMembers,
  };
}

/** The fields of a person that are theirs in every workspace, not the current one's (a role is the workspace's). */
export const PROFILE_FIELDS = ["name", "avatarUrl", "handle", "notificationEmail"] as const;

/** The workspaces `userId` belongs to besides the caller's: where a change of their profile changes answers too. */
export async function otherWorkspacesOf(caller: Caller, userId: string): Promise<string[]> {
  const { rows } = await caller.db.execute<{ id: string }>(
    sql`select ${workspaceMembers.workspaceId} as id from ${workspaceMembers}
      where ${workspaceMembers.userId} = ${userId} and ${workspaceMembers.workspaceId} <> ${caller.actor.workspace}`,
  );
  return rows.map((r) => r.id);
}

/** The caller speaks for the target: it is the caller, or an agent the caller owns. */
const speaksFor = (caller: Caller) => sql`(${users.id} = ${caller.actor.user} or ${users.humanId} = ${caller.actor.user})`;

/**
 * The last OWNER stays: when the write takes an OWNER away (`takesOwner`), an OWNER outside `leaving` (user ids) remains.
 * The owners are locked in user-id order, so concurrent demotions and removals queue rather than deadlock, and the
 * second reads them after the first commits (the owner it took away no longer matches).
 */
const keepsAnOwner = (caller: Caller, takesOwner: SQL, leaving: SQL): Guard => ({
  holds: sql`case when not ${takesOwner} then true else (select count(*) from (
    select o.user_id from ${workspaceMembers} as o where o.workspace_id = ${caller.actor.workspace} and o.role = 'OWNER'
    order by o.user_id for update
  ) as owners where owners.user_id not in (${leaving})) > 0 end`,
  refusal: () => conflict("A workspace must keep at least one OWNER"),
});

/** Columns as a statement leaves them: the written row (CTE `cte`) or, when it wrote none, the table's row matching `where`. */
const after = (table: SQL, cte: string, where: SQL) =>
  sql`(select * from ${sql.identifier(cte)} union all select * from ${table} where ${where} and not exists (select 1 from ${sql.identifier(cte)}))`;

/**
 * PATCH /users/{id}: `name`/`avatarUrl` only on yourself or your own agent; `role` needs workspace ADMIN/OWNER, granting
 * OWNER or changing an OWNER's role needs an OWNER, and the last OWNER keeps the role (409).
 */
export function updateUser(caller: Caller, id: string, input: UserUpdateInput): Promise<WorkspaceUser> {
  const { actor } = caller;
  const { role } = input;
  const profile = Object.fromEntries(
    Object.entries({
      name: input.name,
      avatarUrl: input.avatarUrl,
      handle: input.handle,
      notificationEmail: input.notificationEmail,
    }).filter(([, v]) => v !== undefined),
  );
  const changesProfile = Object.keys(profile).length > 0;
  const guards: Guard[] = [];
  if (changesProfile)
    guards.push({
      holds: speaksFor(caller),
      refusal: () => forbidden("You can only change your own profile: name, avatar, handle, email settings (or your agents')"),
    });
  if (role !== undefined) {
    const changes = sql`(${workspaceMembers.role} <> ${role})`;
    const fromOwner = sql`(${changes} and ${workspaceMembers.role} = 'OWNER')`;
    guards.push(
      workspaceGrantGuard(actor),
      workspaceRoleGuard(actor, "ADMIN", "change workspace roles"),
      workspaceRoleGuard(actor, "OWNER", "grant or take away the OWNER role", sql`not ${role === "OWNER" ? changes : fromOwner}`),
      keepsAnOwner(caller, fromOwner, sql`${users.id}`),
    );
  }
  const inWorkspace = sql`${workspaceMembers.workspaceId} = ${actor.workspace}`;
  return guardedWrite(caller, memberTarget(caller, id, guards), (allowed) => {
    const member = and(sql`${workspaceMembers.userId} = ${allowed}`, inWorkspace)!;
    const ctes: SQL[] = [];
    // The answer reads the user and the membership as the statement leaves them.
    let user = sql`${users}`;
    let membership = sql`${workspaceMembers}`;
    if (changesProfile) {
      const write = caller.db
        .update(users)
        .set({ ...profile, updatedAt: sql`now()` })
        .where(sql`${users.id} = ${allowed}`)
        .returning();
      ctes.push(sql`changed_user as (${write.getSQL()})`);
      user = after(sql`${users}`, "changed_user", sql`${users.id} = ${allowed}`);
    }
    if (role !== undefined) {
      const write = caller.db
        .update(workspaceMembers)
        .set({ role, updatedAt: sql`now()` })
        .where(and(member, sql`${workspaceMembers.role} <> ${role}`))
        .returning();
      ctes.push(sql`changed_member as (${write.getSQL()})`);
      membership = after(sql`${workspaceMembers}`, "changed_member", member);
    }
    return {
      ctes,
      result: sql`(select ${workspaceUserRecord.json()} from ${membership} as ${sql.identifier("workspace_members")}
        join ${user} as ${sql.identifier("users")} on ${users.id} = ${workspaceMembers.userId} where ${member})`,
    };
  });
}

/**
 * DELETE /users/{id}: removes a member from the workspace (ADMIN/OWNER; anyone may leave, and a human may remove their
 * own agent), together with their agents in it. Their team memberships in the workspace go; their API keys for it go
 * with the membership (api_keys_membership_fk), so those keys are 401 from the next request on. Removing an OWNER needs
 * an OWNER, and the last OWNER stays (409).
 */
export async function removeUser(caller: Caller, id: string): Promise<void> {
  const { actor } = caller;
  // The member and their agents in the workspace, as a subquery over the target row (`users` is the target's).
  const leaving = (where: SQL = sql`true`) =>
    sql`select l.user_id from ${workspaceMembers} as l join ${users} as lu on lu.id = l.user_id
      where l.workspace_id = ${actor.workspace} and (lu.id = ${users.id} or lu.human_id = ${users.id}) and ${where}`;
  const owners = (where: SQL) => sql`exists (${leaving(sql`l.role = 'OWNER' and ${where}`)})`;
  const guards = [
    workspaceRoleGuard(actor, "ADMIN", "remove members", speaksFor(caller)),
    // The member leaves every team, so a credential bound to some of them may remove only its own user (or agents).
    unboundGuard(actor, "remove a member from the workspace: it acts on every team", speaksFor(caller)),
    workspaceRoleGuard(actor, "OWNER", "remove an OWNER", sql`not ${owners(sql`l.user_id <> ${actor.user}`)}`),
    keepsAnOwner(caller, owners(sql`true`), leaving()),
  ];
  await guardedWrite(caller, memberTarget(caller, id, guards), (allowed) => {
    const gone = sql`(select u.id from ${users} as u where u.id = ${allowed} or u.human_id = ${allowed})`;
    return {
      ctes: [
        sql`left_teams as (delete from ${teamMembers} where ${teamMembers.workspaceId} = ${actor.workspace} and ${teamMembers.userId} in ${gone})`,
        sql`left_workspace as (delete from ${workspaceMembers} where ${workspaceMembers.workspaceId} = ${actor.workspace} and ${workspaceMembers.userId} in ${gone} returning user_id)`,
      ],
      result: sql<boolean | null>`(select true from left_workspace limit 1)`,
    };
  });
}

/** GET /users/{id}: a member of the workspace (anyone else is NOT_FOUND), in one statement that authenticates itself. */
export function getUser(caller: Caller, id: string, fields: FieldSelection | null = null): Promise<WorkspaceUser> {
  return readRecord(caller, workspaceUserRecord, id, fields);
}

/** GET /users: one page of the workspace's members. */
export function listUsers(caller: Caller, params: ListParams): Promise<WorkspaceUser[]> {
  return listRecords(caller, workspaceUserRecord, params);
}
