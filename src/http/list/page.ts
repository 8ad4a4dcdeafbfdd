import { type AnyColumn, and, eq } from "drizzle-orm";
import type { PgSelect } from "drizzle-orm/pg-core";
import type { WorkspaceScope } from "../../db/client";
import type { ListParams } from "./params";

/**
 * The page query every list runs: `query` (its select and joins) scoped to the workspace, narrowed by the
 * filters and cursor, in the list's order, limit + 1 rows (the extra one tells whether a next page exists).
 */
export function pageQuery<Q extends PgSelect>(query: Q, workspaceColumn: AnyColumn, workspace: WorkspaceScope, params: ListParams) {
  return query
    .where(and(eq(workspaceColumn, workspace), params.where))
    .orderBy(...params.orderBy)
    .limit(params.limit + 1);
}
