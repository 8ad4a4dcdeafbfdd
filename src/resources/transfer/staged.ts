// An import sent in parts (docs/api.md, export and import), for an export larger than one request may carry (32 MiB)
// or a client that would rather send it in pieces. POST /imports opens it; PUT /imports/{id}/parts/{n} stores a part (an
// export document holding some of the records, checked as a whole import's body is) as one row per record; POST
// /imports/{id}/commit imports every part in one transaction, exactly as POST /teams/{id}/import or POST
// /workspaces/import would the whole document (import.ts, with the stored records as its source). Only the import's
// creator sees it; it expires 24 h after it was opened.
import { type SQL, sql } from "drizzle-orm";
import { importParts, importRecords, imports, teams } from "../../../drizzle/schema";
import { callerTeamRole } from "../../auth/access";
import type { Principal } from "../../auth/principal";
import { reachesTeam, type TeamRole } from "../../auth/roles";
import { AppError, notFound, ValidationError } from "../../core/errors";
import type { Db, Executor, Tx } from "../../db/client";
import { inTeams } from "../../db/scope";
import { newId } from "../../ids";
import { nameMatch } from "../../records/names";
import { isoTimestamp } from "../../store/field-map";
import type { Located } from "../../store/transfer-part";
import type { Transfer } from "./document";
import { requireMayImportTeam, requireMayImportWorkspace } from "./import";
import { type Filed, filedRecords, type ImportHead } from "./plan";
import { type DocumentSchemas, type ExportDocumentDto, recordsOf } from "./schema";
import type { ImportSource } from "./source";

/** How long an import stays open (and a committed one readable). */
export const IMPORT_HOURS = 24;
/** Parts are numbered 1…MAX_PARTS; an import holds at most MAX_IMPORT_BYTES of them. */
export const MAX_PARTS = 1000;
export const MAX_IMPORT_BYTES = 1024 ** 3;
/** Records per statement when a part is stored. */
const STORE_ROWS = 2000;

export interface ImportDto {
  id: string;
  teamId: string | null;
  update: boolean;
  status: "open" | "committed";
  parts: Array<{ number: number; bytes: number; records: Record<string, number>; createdAt: string }>;
  createdAt: string;
  expiresAt: string;
  committedAt: string | null;
}

const iso = (column: string) => isoTimestamp(sql.raw(column));
/** The Import answer of the row `i` (an alias of imports), its parts in order. */
const importJson = sql`json_build_object('id', i.id, 'teamId', i.team_id, 'update', i.update, 'status', i.status,
  'parts', (select coalesce(json_agg(json_build_object('number', p.number, 'bytes', p.bytes, 'records', p.records,
    'createdAt', ${iso("p.created_at")}) order by p.number), '[]') from ${importParts} p where p.import_id = i.id),
  'createdAt', ${iso("i.created_at")}, 'expiresAt', ${iso("i.expires_at")}, 'committedAt', ${iso("i.committed_at")})`;

/** The caller's own unexpired import `id` (404 otherwise, also for a credential not bound to its team); `lock`: for the transaction. */
async function ownImport(db: Executor, principal: Principal, id: string, lock = false): Promise<ImportDto> {
  const { rows } = await db.execute<{ import: ImportDto }>(sql`select ${importJson} as import from ${imports} i
    where i.id = ${id} and i.workspace_id = ${principal.workspace.id} and i.user_id = ${principal.user.id} and i.expires_at > now()
    ${lock ? sql`for update of i` : sql``}`);
  const found = rows[0]?.import;
  if (!found || (found.teamId !== null && !reachesTeam(principal, found.teamId))) throw notFound("Import");
  return found;
}

function refuseCommitted(found: ImportDto) {
  if (found.status === "committed") throw new AppError("CONFLICT", "This import is committed already; open a new one");
}

/**
 * Who may import into a team (by id or prefix, within the caller's teams), or into a new workspace: the import's own
 * rules, which its commit applies again. Returns the team's id (null: a new workspace).
 */
async function requireMayImport(db: Executor, principal: Principal, team: string | null): Promise<string | null> {
  if (team === null) {
    requireMayImportWorkspace(principal);
    return null;
  }
  const { rows } = await db.execute<{ id: string; role: TeamRole | null }>(sql`select ${teams.id} as id,
      ${callerTeamRole(principal.user.id, teams.id)} as role
    from ${teams} where ${nameMatch("team", teams.id, team, principal.workspace.id)} and ${teams.workspaceId} = ${principal.workspace.id}
      and ${inTeams(principal.teamIds, teams.id)}`);
  requireMayImportTeam(principal, rows[0]);
  return rows[0].id;
}

/** POST /imports: an open import into team `teamId` (its id or prefix), or (null) into a new workspace. */
export async function openImport(db: Db, principal: Principal, input: { teamId: string | null; update: boolean }): Promise<ImportDto> {
  const teamId = await requireMayImport(db, principal, input.teamId);
  const id = newId("imp");
  await db.insert(imports).values({
    id,
    workspaceId: principal.workspace.id,
    userId: principal.user.id,
    teamId,
    update: input.update,
    expiresAt: sql`now() + make_interval(hours => ${IMPORT_HOURS})`,
  });
  return ownImport(db, principal, id);
}

/** GET /imports/{id}. */
export const getImport = (db: Executor, principal: Principal, id: string): Promise<ImportDto> => ownImport(db, principal, id);

/** DELETE /imports/{id}: its parts go with it (what a committed import imported stays). */
export async function deleteImport(db: Db, principal: Principal, id: string): Promise<void> {
  await ownImport(db, principal, id);
  await db.delete(imports).where(sql`${imports.id} = ${id}`);
}

/** Stores `list` as records of part `number`, a statement per STORE_ROWS; returns its size and the paths of ids another part has. */
async function storeRecords(tx: Tx, id: string, number: number, collection: string, list: Array<{ id: string }>) {
  let bytes = 0;
  const duplicates: Record<string, string[]> = {};
  // One part carries the workspace (of a workspace export): under one key, a second is a duplicate.
  const recordId = collection === "workspace" ? sql`'workspace'` : sql`e.r->>'id'`;
  for (let start = 0; start < list.length; start += STORE_ROWS) {
    const slice = list.slice(start, start + STORE_ROWS);
    const json = JSON.stringify(slice);
    bytes += json.length;
    const { rows } = await tx.execute<{ position: number }>(sql`
      insert into ${importRecords} (import_id, part, collection, position, record_id, record)
      select ${id}, ${number}, ${collection}, ${start} + e.ord - 1, ${recordId}, e.r from jsonb_array_elements(${json}::jsonb) with ordinality e(r, ord)
      on conflict (import_id, (collection = 'users'), record_id) do nothing returning position`);
    if (rows.length === slice.length) continue;
    const stored = new Set(rows.map((r) => r.position));
    const missing = slice.map((r, i) => ({ id: r.id, position: start + i })).filter((r) => !stored.has(r.position));
    const { rows: others } = await tx.execute<{ record_id: string; part: number }>(sql`
      select record_id, min(part) as part from ${importRecords} where import_id = ${id} and (collection = 'users') = ${collection === "users"}
        and record_id = any(${sql.param(missing.map((m) => (collection === "workspace" ? "workspace" : m.id)))}::text[]) group by record_id`);
    const partOf = new Map(others.map((o) => [o.record_id, o.part]));
    for (const m of missing)
      if (collection === "workspace") duplicates["data.data.workspace"] = [`Part ${partOf.get("workspace")} carries the workspace already`];
      else
        duplicates[`data.data.${collection}.${m.position}.id`] = [`Another record of this import (part ${partOf.get(m.id)}) has this id`];
  }
  return { bytes, duplicates };
}

/**
 * PUT /imports/{id}/parts/{number}: stores (or replaces) part `number`. It must be of the import's kind and of the same
 * export as the other parts (type and root), and no record of it may share its id with a record of another part (422 at
 * its path, naming that part).
 */
export async function putPart(
  db: Db,
  principal: Principal,
  schemas: DocumentSchemas,
  id: string,
  number: number,
  doc: ExportDocumentDto,
): Promise<ImportDto> {
  // Interactive (the WebSocket): the staged import is read (locked) and checked before the part is stored.
  await db.transaction(async (tx) => {
    const found = await ownImport(tx, principal, id, true);
    refuseCommitted(found);
    if ((found.teamId === null) !== (doc.type === "workspace"))
      throw new ValidationError({
        "data.type": [
          found.teamId === null
            ? "This import makes a new workspace: its parts are parts of a workspace export"
            : "A workspace export is imported into a new workspace (an import opened without teamId)",
        ],
      });
    const other = found.parts.find((p) => p.number !== number);
    if (other) {
      const { rows } = await tx.execute<{ type: string; root: string }>(
        sql`select type, root from ${importParts} where import_id = ${id} and number = ${other.number}`,
      );
      if (rows[0].type !== doc.type)
        throw new ValidationError({ "data.type": [`Part ${other.number} is part of a ${rows[0].type} export`] });
      if (rows[0].root !== doc.data.root)
        throw new ValidationError({ "data.data.root": [`Part ${other.number} is part of the export of ${rows[0].root}`] });
    }
    await tx.delete(importParts).where(sql`${importParts.importId} = ${id} and ${importParts.number} = ${number}`);
    const collections: Array<[string, Array<{ id: string }>]> = [
      ...schemas.collections.map((name) => [name, recordsOf(doc.data, name)] as [string, Array<{ id: string }>]),
      ["workspace", doc.data.workspace ? [doc.data.workspace] : []],
    ];
    await tx.insert(importParts).values({
      importId: id,
      number,
      type: doc.type,
      root: doc.data.root,
      bytes: 0,
      records: Object.fromEntries(schemas.collections.map((name) => [name, recordsOf(doc.data, name).length])),
    });
    let bytes = 0;
    const duplicates: Record<string, string[]> = {};
    for (const [collection, list] of collections) {
      const stored = await storeRecords(tx, id, number, collection, list);
      bytes += stored.bytes;
      Object.assign(duplicates, stored.duplicates);
    }
    if (Object.keys(duplicates).length) throw new ValidationError(duplicates);
    const others = found.parts.filter((p) => p.number !== number).reduce((sum, p) => sum + p.bytes, 0);
    if (others + bytes > MAX_IMPORT_BYTES)
      throw new AppError("PAYLOAD_TOO_LARGE", `An import holds at most ${MAX_IMPORT_BYTES / 1024 ** 3} GiB of parts`);
    await tx.update(importParts).set({ bytes }).where(sql`${importParts.importId} = ${id} and ${importParts.number} = ${number}`);
  });
  return ownImport(db, principal, id);
}

/**
 * POST /imports/{id}/commit: every part imported in one transaction `tx` by `run` (the import of its kind, import.ts);
 * then the import is committed (its stored records are deleted by the Cron Trigger, in batches).
 */
export async function commitImport<T>(
  tx: Tx,
  principal: Principal,
  transfer: Transfer,
  id: string,
  run: (target: { teamId: string | null; update: boolean }, source: ImportSource) => Promise<T>,
): Promise<T> {
  const found = await ownImport(tx, principal, id, true);
  refuseCommitted(found);
  if (found.parts.length === 0)
    throw new ValidationError({ parts: ["Send at least one part (PUT /imports/{id}/parts/{n}) before committing"] });
  const result = await run({ teamId: found.teamId, update: found.update }, stagedSource(tx, transfer, id));
  await tx.update(imports).set({ status: "committed", committedAt: sql`now()` }).where(sql`${imports.id} = ${id}`);
  return result;
}

type Stored = { part: number; collection: string; position: number; record: unknown };

/** A stored record, checked again (the rules may have changed since its part was stored), with its path in its part. */
function located<T>(schemas: DocumentSchemas, row: Stored): Located<T> {
  const at = `parts.${row.part}.data.data.${row.collection}${row.collection === "workspace" ? "" : `.${row.position}`}`;
  const checked = schemas.recordSchema(row.collection).safeParse(row.record);
  if (!checked.success) throw new ValidationError({ [at]: checked.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) });
  return { record: checked.data as T, at };
}

/** The parts of import `id` as an import's source: records in the order of their part, then of their place in it. */
function stagedSource(tx: Tx, { parts, schemas }: Transfer, id: string): ImportSource {
  const ofImport = sql`import_id = ${id}`;
  const paged = ["tasks", "comments", ...parts.paged.map((p) => p.collection)];
  return {
    async head() {
      const { rows } = await tx.execute<{ type: ImportHead["type"]; root: string; records: Stored[] }>(sql`
        select p.type, p.root, (select coalesce(json_agg(json_build_object('collection', r.collection, 'part', r.part,
            'position', r.position, 'record', r.record) order by r.part, r.position), '[]')
          from ${importRecords} r where r.${ofImport} and r.collection <> all(${sql.param(paged)}::text[])) as records
        from ${importParts} p where p.import_id = ${id} order by p.number limit 1`);
      const { type, root, records } = rows[0];
      const of = <T>(collection: string) => records.filter((r) => r.collection === collection).map((r) => located<T>(schemas, r));
      return {
        type,
        root,
        workspace: of<NonNullable<ImportHead["workspace"]>>("workspace")[0]?.record,
        users: of("users"),
        labels: of("labels"),
        fields: of("fields"),
        teams: of("teams"),
        projects: of("projects"),
        milestones: of("milestones"),
        filed: filedRecords(parts.filed.flatMap((p) => of<Filed>(p.collection))),
      };
    },
    async *pages(collection: string, size: number) {
      let after: SQL = sql`true`;
      for (;;) {
        const { rows } = await tx.execute<Omit<Stored, "collection">>(sql`
          select part, position, record from ${importRecords} where ${ofImport} and collection = ${collection} and ${after}
          order by part, position limit ${size}`);
        if (rows.length === 0) return;
        yield rows.map((row) => located<never>(schemas, { ...row, collection }));
        const last = rows[rows.length - 1];
        after = sql`(part, position) > (${last.part}, ${last.position})`;
      }
    },
    ids: sql<string[]>`array(select record_id from ${importRecords} where ${ofImport} and collection <> 'users')`,
    typePath: "parts",
  };
}

/** The Cron Trigger's sweep: committed imports' records, then expired imports whole, a batch per statement. */
export async function pruneImports(db: Db): Promise<void> {
  for (;;) {
    const { rowCount } = await db.execute(sql`delete from ${importRecords} where ctid = any(array(
      select r.ctid from ${importRecords} r join ${imports} i on i.id = r.import_id
      where i.status = 'committed' or i.expires_at <= now() limit 5000))`);
    if (!rowCount) break;
  }
  await db.execute(sql`delete from ${imports} where expires_at <= now()`);
}
