// The list of what hangs on one record (a task's, a session's): one page in one query, with the record's own 404.
import { and, eq, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { tasks, teams } from "../../drizzle/schema";
import { notFound } from "../core/errors";
import { taskRecord } from "../resources/tasks/record";
import type { RecordType } from "../store/field-map";
import type { ListParams } from "../store/list";
import type { Actor, StatementCaller } from "../store/statement-caller";
import { taskMatch } from "./names";

type Answer<R extends RecordType> = ReturnType<R["json"]>["_"]["type"];

/** The record the children hang on: `select <id> as id … limit 1` of the one the caller sees, and its NOT_FOUND's noun. */
export interface Parent {
  select: (actor: Actor) => SQL;
  noun: string;
}

/**
 * One page of `record`s whose `parentId` is the parent's id, those the caller reaches (`record.inReach`). The page is
 * left-joined to the parent (read under its own rules), so an unknown or foreign parent gives no row (404) and a parent
 * with no children one row of nulls. `from` is what the page joins: the record's table, or its joins in parentheses.
 */
export function listChildren<R extends RecordType>(
  caller: StatementCaller,
  parent: Parent,
  params: ListParams,
  child: { record: R; from: PgTable | SQL; parentId: SQLWrapper },
): Promise<Answer<R>[]> {
  return caller.list(async (actor: Actor) => {
    const rows = await caller.db
      .select({ record: child.record.json(params.fields) })
      .from(sql`(${parent.select(actor)}) as ${sql.identifier("parent")}`)
      .leftJoin(child.from, and(eq(child.parentId, sql`${sql.identifier("parent")}.id`), child.record.inReach(actor), params.where))
      .orderBy(...params.orderBy)
      .limit(params.limit + 1);
    if (rows.length === 0) throw notFound(parent.noun);
    return rows.map((row) => row.record as Answer<R>).filter((record) => (record as { id: unknown }).id !== null);
  });
}

/** GET /tasks/{id}/<children>: what hangs on the task `idOrRef` names (read under the task's own reach). */
export function listTaskChildren<R extends RecordType>(
  caller: StatementCaller,
  idOrRef: string,
  params: ListParams,
  child: { record: R; from: PgTable | SQL; taskId: SQLWrapper },
): Promise<Answer<R>[]> {
  const task: Parent = {
    select: (actor) => sql`select ${tasks.id} as id from ${tasks} join ${teams} on ${teams.id} = ${tasks.teamId}
      where ${and(taskRecord.inReach(actor), taskMatch(idOrRef, actor.workspace))} limit 1`,
    noun: taskRecord.noun,
  };
  return listChildren(caller, task, params, { record: child.record, from: child.from, parentId: child.taskId });
}
