// The reads every record has, written once: one record by id (or reference), and a page of a list. Each is one
// statement scoped by the caller's workspace as SQL, so it authenticates itself; finding nothing asks whether the
// credential is live (401) before answering 404 or an empty page.
import type { SQL } from "drizzle-orm";
import { notFound } from "../core/errors";
import type { Actor, StatementCaller as Caller } from "./caller";
import { type FieldSelection, type ListParams, pageQuery } from "./list";
import type { RecordType } from "./record";

type Answer<R extends RecordType> = ReturnType<R["json"]>["_"]["type"];

/** GET /<records>/{id}: the record `idOrRef` names in the caller's workspace, narrowed to `fields` in SQL. */
export function readRecord<R extends RecordType>(caller: Caller, record: R, idOrRef: string, fields: FieldSelection | null = null) {
  return caller.read(async (actor) => {
    const [row] = await caller.db
      .select({ record: record.json(fields, actor) })
      .from(record.from)
      .where(record.named(actor, idOrRef))
      .limit(1);
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
