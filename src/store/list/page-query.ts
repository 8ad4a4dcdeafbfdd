import { and, type SQL } from "drizzle-orm";
import type { PgSelect } from "drizzle-orm/pg-core";
import type { ListParams } from "./params";

/**
 * The page query every list runs: `query` (its select and joins) narrowed by `scope` (the rows the caller may
 * see: its workspace, and whatever else the list adds), the filters and the cursor, in the list's order,
 * limit + 1 rows (the extra one tells whether a next page exists).
 */
export function pageQuery<Q extends PgSelect>(query: Q, scope: SQL | undefined, params: ListParams) {
  return query
    .where(and(scope, params.where))
    .orderBy(...params.orderBy)
    .limit(params.limit + 1);
}
