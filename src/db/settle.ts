// The outcome of a write whose connection failed after a statement went out (docs/security.md, "A 503 tells the truth"):
// it may have committed or not, and the answer must say which. Every write takes its request's fence in its own round
// trip (`fenced` in event-context.ts: in a one-statement write's statement, in a transaction's BEGIN). After such a failure
// `settle` sets the fence on a connection of its own, ends whatever of the request still runs and reads the events its
// writes committed (migrations/functions/pm_fence.sql and pm_settle.sql, the table in migration 0024). From then on
// nothing of the request can still commit, so what it finds is the whole truth.
import { sql } from "drizzle-orm";
import { TypeID } from "typeid-js";
import type { Env } from "../env";
import { RequestDb } from "./client";

/** An event the settled request committed. */
export interface SettledEvent {
  type: string;
  resourceType: string;
  resourceId: string;
}

/**
 * The settling connection's bounds: the client already waited, so it gives up sooner than a request would (and the
 * database's own lock waits inside pm_settle are 1 s each).
 */
const SETTLE_BOUND_MS = 3000;
/**
 * How far back the request's events are looked for: the request's own age plus a margin for the clocks of the Worker
 * and the database (event ids are UUIDv7, made by the database's clock).
 */
const CLOCK_MARGIN_MS = 60_000;

/** The smallest event id of `ms` (milliseconds since the epoch): the floor of the ids made since. */
function eventIdFloor(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0");
  return TypeID.fromUUID("evt", `${hex.slice(0, 8)}-${hex.slice(8)}-7000-8000-000000000000`).toString();
}

/**
 * Settles the request: its events once nothing of it can commit any more, or null when that could not be made sure
 * (the database is unreachable, or something of the request could not be ended in time): then the outcome is unknown.
 */
export async function settle(
  env: Pick<Env, "DATABASE_URL" | "DB_WS_PROXY" | "DB_HTTP_PROXY">,
  request: { attempt: string; requestId: string; startedAt: number },
): Promise<SettledEvent[] | null> {
  const rdb = new RequestDb(env, { bounds: { connect: SETTLE_BOUND_MS, query: SETTLE_BOUND_MS } });
  try {
    const { rows } = await rdb.db.execute<{ type: string; resource_type: string; resource_id: string }>(
      sql`select * from pm_settle(${request.attempt}, ${request.requestId}, ${eventIdFloor(request.startedAt - CLOCK_MARGIN_MS)})`,
    );
    return rows.map((r) => ({ type: r.type, resourceType: r.resource_type, resourceId: r.resource_id }));
  } catch (err) {
    console.error(`[${request.requestId}] could not settle the request's outcome: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  } finally {
    await rdb.close();
  }
}
