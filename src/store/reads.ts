// The reads every record has, written once: one record by id (or reference), and a page of a list. Each is one
// statement scoped by the caller's workspace as SQL, so it authenticates itself; finding nothing asks whether the
// credential is live (401) before answering 404 or an empty page.
import { and, type SQL, sql } from "drizzle-orm";
import { notFound } from "../core/errors";
import type { Db } from "../db/client";
import { sqlDialect as dialect } from "../db/dialect";
import type { RecordType } from "./field-map";
import { type FieldSelection, type ListParams, pageQuery } from "./list";
import type { Actor, StatementCaller as Caller } from "./statement-caller";

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
    const pending = combining.get(caller.db);
    const narrowed = scope?.(actor);
    const row = pending
      ? await combined(pending, caller.db, { record, actor, fields, scope: narrowed }, idOrRef)
      : (
          await caller.db
            .select({ record: record.json(fields, actor) })
            .from(record.from)
            .where(narrowed ? and(record.named(actor, idOrRef), narrowed) : record.named(actor, idOrRef))
            .limit(1)
        )[0];
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

/** One-record reads that can share a statement: one record type, one reach, one selection of fields. */
interface Group {
  record: RecordType;
  actor: Actor;
  fields: FieldSelection | null;
  /** What narrows the caller's reach further (readRecord's `scope`). */
  scope?: SQL;
}

/** The rows a group's reads may find: the caller's reach, narrowed by the read's scope. */
const reachOf = ({ record, actor, scope }: Group): SQL => (scope ? (and(record.inReach(actor), scope) as SQL) : record.inReach(actor));
/** A one-record read waiting for its group's statement: the id or reference it names, and where its row (or none) goes. */
interface Waiting {
  idOrRef: string;
  settle: (row: { record: unknown } | undefined, err?: unknown) => void;
}
// The databases (one per request) whose one-record reads are combined, each with the reads waiting, by group.
const combining = new WeakMap<Db, Map<string, Waiting[]>>();

/**
 * From now on, the one-record reads `db` starts in one turn of the event loop (a batch's items) are one statement per
 * record type (and reach and `fields`): the records their values name (references looked up in one go), then one
 * select of those records by `id = any(…)`, keyed back to each read by its value, so each keeps its own answer and its
 * own 404. Reads inside a transaction (another
 * handle) are not combined.
 */
export function combineRecordReads(db: Db): void {
  if (!combining.has(db)) combining.set(db, new Map());
}

function combined(pending: Map<string, Waiting[]>, db: Db, group: Group, idOrRef: string) {
  // Reads of one type share a statement only when they select the same rows and fields: the same reach, as SQL.
  const { sql: reach, params } = dialect.sqlToQuery(reachOf(group));
  const key = JSON.stringify([group.record.name, group.fields, reach, params]);
  return new Promise<{ record: unknown } | undefined>((resolve, reject) => {
    let waiting = pending.get(key);
    if (!waiting) {
      waiting = [];
      pending.set(key, waiting);
      // After the turn that started the reads: every read started in it has joined.
      queueMicrotask(() => {
        pending.delete(key);
        void runCombined(db, group, waiting!);
      });
    }
    waiting.push({ idOrRef, settle: (row, err) => (err === undefined ? resolve(row) : reject(err)) });
  });
}

async function runCombined(db: Db, group: Group, waiting: Waiting[]): Promise<void> {
  const { record, actor, fields } = group;
  try {
    // `k`: the records the reads name, each with the key its value finds it by (a reference looked up once for all);
    // then the records by their primary key.
    const values = [...new Set(waiting.map((w) => w.idOrRef))];
    const { rows } = await db.execute<{ key: string; record: unknown }>(sql`
      with k as materialized (${record.keyedIds(values, actor.workspace)})
      select k.key, r.record from k join (
        select ${record.json(fields, actor)} as record, ${record.list.id} as id from ${record.from}
        where ${reachOf(group)} and ${record.list.id} = any(array(select id from k))
      ) r on r.id = k.id`);
    const found = new Map(rows.map((row) => [row.key, { record: row.record }]));
    for (const w of waiting) {
      const key = record.pathKeys(w.idOrRef).find((k) => found.has(k));
      w.settle(key === undefined ? undefined : found.get(key));
    }
  } catch (err) {
    for (const w of waiting) w.settle(undefined, err ?? new Error("combined read failed"));
  }
}
