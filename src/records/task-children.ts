// The list of what hangs on one task (its relations, links and files): one page in one query, with the task's own 404.
import { and, eq, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { tasks, teams } from "../../drizzle/schema";
import { notFound } from "../core/errors";
import type { Actor, StatementCaller } from "../store/caller";
import type { ListParams } from "../store/list";
import type { RecordType } from "../store/record";
import { taskMatch } from "./names";
import { taskRecord } from "./tasks";

type Answer<R extends RecordType> = ReturnType<R["json"]>["_"]["type"];

/**
 * GET /tasks/{id}/<children>: one page of `record`s whose `taskId` is the task `idOrRef` names, those the caller reaches
 * (`record.inReach`). The page is left-joined to the task (read under the task's own reach), so an unknown or foreign
 * task gives no row (404) and a task with no children one row of nulls. `from` is what the page joins: the record's
 * table, or its joins in parentheses.
 */
export function listTaskChildren<R extends RecordType>(
  caller: StatementCaller,
  idOrRef: string,
  params: ListParams,
  child: { record: R; from: PgTable | SQL; taskId: SQLWrapper },
): Promise<Answer<R>[]> {
  return caller.list(async (actor: Actor) => {
    const parent = sql`(select ${tasks.id} as id from ${tasks} join ${teams} on ${teams.id} = ${tasks.teamId}
      where ${and(taskRecord.inReach(actor), taskMatch(idOrRef))} limit 1) as ${sql.identifier("parent")}`;
    const rows = await caller.db
      .select({ record: child.record.json(params.fields) })
      .from(parent)
      .leftJoin(child.from, and(eq(child.taskId, sql`${sql.identifier("parent")}.id`), child.record.inReach(actor), params.where))
      .orderBy(...params.orderBy)
      .limit(params.limit + 1);
    if (rows.length === 0) throw notFound(taskRecord.noun);
    return rows.map((row) => row.record as Answer<R>).filter((record) => (record as { id: unknown }).id !== null);
  });
}
