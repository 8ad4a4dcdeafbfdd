// A task's category (backlog, unstarted, started, completed, canceled), the one expression the cycles' progress, rollover,
// history and velocity read it through. Statuses are fixed today; when they become per-team workflow states with a
// stored category (docs/api.md, "Workflow states"), this becomes that column.
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";

export type Category = "backlog" | "unstarted" | "started" | "completed" | "canceled";

/** The category of `status` (a task's status column, or a status key read from an event's image). */
export const categoryOf = (status: SQLWrapper): SQL<Category> =>
  sql`(case ${status}::text when 'BACKLOG' then 'backlog' when 'TODO' then 'unstarted' when 'IN_PROGRESS' then 'started'
    when 'IN_REVIEW' then 'started' when 'DONE' then 'completed' when 'CANCELED' then 'canceled' end)`;

/** The categories a task is done in: a cycle's rollover leaves such tasks where they are. */
export const CLOSED: readonly Category[] = ["completed", "canceled"];
