// The position a write answers in `PM-Position` (docs/api.md): the id of the last event its transaction wrote, or, when
// it wrote none, the latest event of its workspace at its commit; the value `GET /events?after=` takes. Read in the
// write's own round trip: a transaction's COMMIT is preceded by it in the same simple-protocol query (client.ts); a
// one-statement write over HTTP sends it after the statement in the same HTTP transaction (RequestDb.executeWrite).
import { type SQL, sql } from "drizzle-orm";

/** The response header of a successful write. */
export const POSITION_HEADER = "PM-Position";

/**
 * One row, `pm_position`: this transaction's last event, else the workspace's latest committed event, else null
 * (pm_position, planned once per backend); and `pm_queued`, whether the transaction queued a webhook delivery
 * (pm_deliveries_queued), so that a request that queued none sends no relay query after its response. Run inside the
 * writing transaction.
 */
export const positionSelect = (workspace: SQL | string | undefined): SQL =>
  sql`select pm_position((${workspace === undefined ? sql`null` : workspace})::text) as pm_position,
    coalesce(current_setting('pm.deliveries_queued', true) = 'on', false) as pm_queued`;

/** The row positionSelect reads. */
export interface PositionRow {
  pm_position?: string | null;
  pm_queued?: boolean;
}

/** The request header a GET names a write's position with: nothing older may answer (docs/sync.md). */
export const MIN_POSITION_HEADER = "PM-Min-Position";

/** One row, `known`: whether `id` is an event of `workspace` (events' primary key). */
export const positionKnown = (workspace: SQL | string, id: string): SQL =>
  sql`select exists (select 1 from events e where e.id = ${id} and e.workspace_id = ${workspace}) as known`;
