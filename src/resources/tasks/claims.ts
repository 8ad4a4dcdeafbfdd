// Claims (docs/agents.md, "Claims"): a worker takes a task for a lease so that no other worker sharing the queue takes
// it. One function per operation, called alike by the REST routes and the MCP tools; each is ONE statement. A claim is a
// write of the task: the `tasks:write` scope (the route's), the task write rule and the credential's teams, and an event
// (`task.claimed`, `task.released`: the triggers of migration 0025).
import { and, type SQL, sql } from "drizzle-orm";
import { tasks } from "../../../drizzle/schema";
import { actorMay, TASK_WRITE, taskTarget, teamRoleGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { teamRoleRefusal, workspaceAdminSql } from "../../auth/roles";
import { conflict, forbidden } from "../../core/errors";
import { statementBound } from "../../db/client";
import { contextSet } from "../../db/event-context";
import { isoTimestamp } from "../../store/field-map";
import { type Guard, guardedWrite } from "../../store/guarded";
import { type FilterSort, filterSortQuery } from "../../store/list";
import { claimFree, claimLive, type TaskClaimDto } from "./claims-record";
import { type TaskDto, taskRecord } from "./record";

export interface Claimed {
  task: TaskDto;
  claim: TaskClaimDto;
}

/** The task `tasks` names (the CTE of the claim's write, which shadows the table), as its answer. */
const claimedAnswer = sql<TaskDto | null>`(select ${taskRecord.json()} from ${taskRecord.from} where ${tasks.id} = (select id from tasks))`;

/** The claim's columns: the caller holds the task for `leaseSeconds` from now. */
const holding = (caller: Caller, leaseSeconds: number) =>
  sql`claim_holder_id = ${caller.actor.user}, claim_expires_at = now() + make_interval(secs => ${leaseSeconds})`;

const answer = (task: TaskDto | null): Claimed => ({ task: task!, claim: task!.claim! });

/** No live claim of another holds the task; the 409 names the one that does. */
const notHeldByAnother = (caller: Caller): Guard => ({
  holds: sql`(${claimFree} or ${tasks.claimHolderId} = ${caller.actor.user})`,
  readsTarget: true,
  refusal: (target) =>
    conflict("Another holder has claimed this task", { holderId: target.claimHolderId, expiresAt: target.claimExpiresAt }),
});

/** The task `idOrRef` with the claim's columns, its row locked in the write: concurrent claims of it take turns. */
function claimTarget(caller: Caller, idOrRef: string, guards: (base: ReturnType<typeof taskTarget>) => Guard[]) {
  const base = taskTarget(caller, idOrRef);
  return {
    ...base,
    columns: { id: tasks.id, claimHolderId: tasks.claimHolderId, claimExpiresAt: isoTimestamp(tasks.claimExpiresAt) },
    guards: guards(base),
  };
}

/**
 * POST /tasks/{id}/claim: takes the task, or renews the caller's own claim (expiry = now + lease). The row is locked
 * first, so of racing claims one takes it and each other one reads that holder (409 naming it).
 */
export async function claimTask(caller: Caller, idOrRef: string, leaseSeconds: number): Promise<Claimed> {
  const target = claimTarget(caller, idOrRef, (base) => [...base.guards, notHeldByAnother(caller)]);
  const task = await guardedWrite(
    caller,
    target,
    (allowed) => ({
      ctes: [sql`tasks as (update ${tasks} set ${holding(caller, leaseSeconds)} where ${tasks.id} = ${allowed} returning *)`],
      result: claimedAnswer,
    }),
    { lock: "no key update" },
  );
  return answer(task);
}

/**
 * DELETE /tasks/{id}/claim: by its holder, or a workspace ADMIN/OWNER (403 otherwise). A task no live claim holds is
 * released already: 204 and nothing written (so a retry after a lost answer is harmless). Anyone else must still
 * be allowed to write the task (a VIEWER is 403 whatever the claim).
 */
export async function releaseTask(caller: Caller, idOrRef: string): Promise<void> {
  const { actor } = caller;
  const mine = sql`(${tasks.claimHolderId} = ${actor.user})`;
  const target = claimTarget(caller, idOrRef, () => [
    teamRoleGuard(actor, tasks.teamId, TASK_WRITE.min, TASK_WRITE.what, mine),
    {
      holds: sql`(${claimFree} or ${mine} or ${workspaceAdminSql(actor.role)})`,
      refusal: () => forbidden("Only the claim's holder or a workspace ADMIN/OWNER may release it"),
    },
  ]);
  await guardedWrite(
    caller,
    target,
    (allowed) => ({
      // Only a live claim is cleared (an event); an expired one holds nothing and stays as it is.
      ctes: [
        sql`released as (update ${tasks} set claim_holder_id = null, claim_expires_at = null where ${tasks.id} = ${allowed} and ${claimLive} returning id)`,
      ],
      result: sql<boolean | null>`(select true where ${allowed} is not null)`,
    }),
    { lock: "no key update" },
  );
}

export interface ClaimNext extends FilterSort {
  leaseSeconds: number;
}

/**
 * POST /tasks/claim: the first task in the list's order (its filter and sort, as GET /tasks reads them) that the caller
 * may write and no live claim holds, taken for the lease; null when there is none. ONE statement: the candidates are
 * locked SKIP LOCKED, and one a concurrent claim took is rechecked on what that claim wrote and passed over, so racing
 * workers each take another task. Nothing free that the caller may write, but something free that it may only read:
 * 403, the task write rule's refusal.
 */
export async function claimNext(caller: Caller, input: ClaimNext): Promise<Claimed | null> {
  const { actor } = caller;
  // Per-workspace names (custom fields) resolve first, as a list's do (one query).
  const params = await (await caller.listParams(taskRecord.list, filterSortQuery(input))).resolve(caller.db, actor.workspace);
  const context = caller.writing();
  const matching = (...also: SQL[]) => and(taskRecord.inReach(actor), params.where, claimFree, ...also);
  const mayWrite = actorMay(actor, tasks.teamId, TASK_WRITE.min);
  // `tasks` names the table up to the CTE that shadows it with the claimed row (the answer reads that one); `read_only`
  // is read (on demand) only when nothing was picked.
  // Sent with the write's position (PM-Position), as every write is.
  const { rows } = await caller.executeWrite<{ live: boolean; task: TaskDto | null; readOnly: boolean | null }>([
    sql`
    with picked as (
      select ${tasks.id} as id from ${taskRecord.from}
      where ${matching(mayWrite, statementBound, ...(context ? [contextSet(context)] : []))}
      order by ${sql.join(params.orderBy, sql`, `)}
      limit 1
      for no key update of ${tasks} skip locked
    ), read_only as (
      select 1 from ${taskRecord.from} where ${matching(sql`not coalesce(${mayWrite}, false)`)} limit 1
    ), tasks as (
      update ${tasks} set ${holding(caller, input.leaseSeconds)} where ${tasks.id} = (select id from picked) returning *
    )
    select ${caller.live} as live, ${claimedAnswer} as task,
      case when not exists (select 1 from picked) then exists (select 1 from read_only) end as "readOnly"`,
  ]);
  const [row] = rows;
  if (row.task) {
    caller.touch();
    return answer(row.task);
  }
  if (!row.live) throw await caller.refused();
  if (row.readOnly) throw teamRoleRefusal(TASK_WRITE.min, TASK_WRITE.what);
  return null;
}
