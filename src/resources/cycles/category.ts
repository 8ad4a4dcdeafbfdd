// A task's category (backlog, unstarted, started, completed, canceled), the one expression the cycles' progress, rollover,
// history and velocity read it through: the category its workflow state gives it (docs/api.md, "Workflow states").
import { type SQL, sql } from "drizzle-orm";
import type { StateCategoryDto as Category } from "../../records/task-status";

/** The category of the task row `alias` (its stored `status_category`). */
export const categoryOf = (alias: string): SQL<Category> => sql`${sql.raw(alias)}.status_category::text`;

/**
 * The category an event's image `image` records. Images written before workflow states carry no `statusCategory`: their
 * status is one of the six fixed keys, each the category of the default state of that key.
 */
export const imageCategoryOf = (image: string): SQL<Category> =>
  sql`coalesce(${sql.raw(image)}->>'statusCategory', case ${sql.raw(image)}->>'status' when 'BACKLOG' then 'backlog'
    when 'TODO' then 'unstarted' when 'IN_PROGRESS' then 'started' when 'IN_REVIEW' then 'started' when 'DONE' then 'completed'
    when 'CANCELED' then 'canceled' end)`;
