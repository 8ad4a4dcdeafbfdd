// Who a request's writes are by, for the events the database's triggers write with each change (docs/events.md): the
// actor (a user id, or SQL that reads it from the credential), how it came (`via`) and the request id. The triggers read
// it from the transaction's `pm.ctx` setting, which every write sets in its own round trip: a single-statement write in
// its statement (contextSet), a transaction in the BEGIN it starts with (withContext). The same round trip takes the
// request's fence (src/db/settle.ts), so that a request whose outcome is settled after a lost connection writes nothing later.
import { type AnyColumn, type SQL, sql } from "drizzle-orm";
import { sqlDialect as dialect } from "./dialect";

export type EventVia = "api_key" | "jwt" | "mcp" | "import" | "sign_up" | "oauth";

export interface EventContext {
  actor: SQL | string | null;
  via: EventVia | null;
  requestId: string;
  /** This request's attempt: a server-made UUID (the caller may repeat its x-request-id), what its writes are fenced by. */
  attempt: string;
}

/**
 * A condition (always true) that takes the attempt's fence (src/db/settle.ts): a write of a request already settled
 * fails here, before it changes anything.
 */
const fenced = (attempt: string): SQL => sql`pm_fence(${attempt})`;

const json = (ctx: EventContext): SQL =>
  sql`json_build_object('actor', ${ctx.actor}::text, 'via', ${ctx.via}::text, 'requestId', ${ctx.requestId}::text)::text`;

/** A condition that sets the context (true once set): evaluated before the statement writes, as an InitPlan. */
export const contextSet = (ctx: EventContext): SQL =>
  sql`(select set_config('pm.ctx', ${json(ctx)}, true) is not null and ${fenced(ctx.attempt)})`;

/**
 * A condition that is true and readies this connection's event triggers (pm_warm_events: pm_emit compiled, its tables
 * and indexes in the backend's caches, nothing written). A create evaluates it before it takes its team's counter lock,
 * so the triggers that run under that lock run warm instead of paying a fresh backend's first use while the team's other
 * creates wait (docs/performance.md, "Writes and search").
 */
export const eventsWarmed: SQL = sql`(select pm_warm_events())`;

/**
 * A condition that is true once this transaction holds the team's rename lock shared (pm_team_key, docs/sync.md "A team
 * renamed"). A create takes it before its team's counter row (an import, before the team's row), as an update or
 * delete takes it before its row: a rename under way is waited for, so the create reads the new prefix. The counter row alone did not order them: a rename takes
 * its transaction id when it first tries that row, and a create could still take the row first and commit with the old
 * prefix while the rename's events, naming the new record, stood before its creation in the stream.
 */
export const renameLockShared = (teamId: SQL | AnyColumn): SQL => sql`pg_advisory_xact_lock_shared(pm_team_key(${teamId})) is not null`;

/**
 * `begin` followed by setting the context, as one simple-protocol query (so no extra round trip): the parameters are
 * inlined as escaped literals, the actor's credential subquery included.
 */
export function withContext(begin: string, ctx: EventContext): string {
  const { sql: text } = dialect.sqlToQuery(sql`select set_config('pm.ctx', ${json(ctx)}, true), ${fenced(ctx.attempt)}`.inlineParams());
  return `${begin}; ${text}`;
}
