// The reads every record has, written once: one record by id (or reference), and a page of a list. Each is one
// statement scoped by the caller's workspace as SQL, so it authenticates itself; finding nothing asks whether the
// credential is live (401) before answering 404 or an empty page.
import { and, type SQL, sql } from "drizzle-orm";
import { notFound } from "../core/errors";
import type { Db } from "../db/client";
import type { Actor, StatementCaller as Caller } from "./caller";
import { type FieldSelection, type ListParams, pageQuery } from "./list";
import type { RecordType } from "./record";

type Answer<R extends RecordType> = ReturnType<R["json"]>["_"]["type"];

/**
 * GET /<records>/{id}: the record `idOrRef` names in the caller's workspace, narrowed to `fields` in SQL; `scope` narrows
 * what the caller sees further (an agent sees its own sessions).
 */
export function readRecord<R extends RecordType>(
  caller: Caller,
  record: R,
  idOrRef: string,
  fields: FieldSelection | null = null,
  scope?: (actor: Actor) => SQL,
) {
  return caller.read(async (actor) => {
    const query = caller.db
      .select({ record: record.json(fields, actor) })
      .from(record.from)
      .where(scope ? and(record.named(actor, idOrRef), scope(actor)) : record.named(actor, idOrRef))
      .limit(1);
    const pending = combining.get(caller.db);
    const row = pending ? await combined(pending, caller.db, record, query.getSQL()) : (await query)[0];
    if (!row) throw notFound(record.noun);
    return row.record as Answer<R>;
  });
}

/**
 * GET /<records>: one page (limit + 1 rows) in one query whatever the page size; `scope` narrows the workspace's records
 * (the caller's own API keys…). Filters and sorts on per-workspace names (custom fields) first resolve them (one query).
 */
export function listRecords<R extends RecordType>(caller: Caller, record: R, params: ListParams, scope?: (actor: Actor) => SQL) {
  return caller.list(async (actor) => {
    const page = await params.resolve(caller.db, actor.workspace);
    const where = scope ? scope(actor) : record.inReach(actor);
    const rows = await pageQuery(
      caller.db
        .select({ record: record.json(page.fields, actor) })
        .from(record.from)
        .$dynamic(),
      where,
      page,
    );
    return rows.map((row) => row.record as Answer<R>);
  });
}

/** A one-record read waiting for its combined statement: its own select, and where its row (or none) goes. */
interface Waiting {
  select: SQL;
  settle: (row: { record: unknown } | undefined, err?: unknown) => void;
}
// The databases (one per request) whose one-record reads are combined, each with the reads waiting, by record type.
const combining = new WeakMap<Db, Map<RecordType, Waiting[]>>();

/**
 * From now on, the one-record reads `db` starts in one turn of the event loop (a batch's items) are one statement per
 * record type: each read's own select (its scope, its fields, its id) under `union all`, keyed back by its index, so
 * each keeps its own answer and its own 404. Reads inside a transaction (another handle) are not combined.
 */
export function combineRecordReads(db: Db): void {
  if (!combining.has(db)) combining.set(db, new Map());
}

function combined(pending: Map<RecordType, Waiting[]>, db: Db, record: RecordType, select: SQL) {
  return new Promise<{ record: unknown } | undefined>((resolve, reject) => {
    let waiting = pending.get(record);
    if (!waiting) {
      waiting = [];
      pending.set(record, waiting);
      // After the turn that started the reads: every read started in it has joined.
      queueMicrotask(() => {
        pending.delete(record);
        void runCombined(db, waiting!);
      });
    }
    waiting.push({ select, settle: (row, err) => (err === undefined ? resolve(row) : reject(err)) });
  });
}

async function runCombined(db: Db, waiting: Waiting[]): Promise<void> {
  try {
    const selects = waiting.map((w, i) => sql`(select ${sql.raw(String(i))} as i, q.record from (${w.select}) as q(record))`);
    const { rows } = await db.execute<{ i: number; record: unknown }>(sql.join(selects, sql` union all `));
    const found = new Map(rows.map((row) => [Number(row.i), { record: row.record }]));
    for (const [i, w] of waiting.entries()) w.settle(found.get(i));
  } catch (err) {
    for (const w of waiting) w.settle(undefined, err ?? new Error("combined read failed"));
  }
}
