// A write decided by its own statement (docs/architecture.md, "One function per operation"): the statement reads the
// row it acts on (the target), evaluates each rule of the operation on it, writes only when every rule holds, and
// answers with why it wrote nothing in the same round trip: 401 (the credential), 404 (no target), the refusal of the
// first rule that fails, or 409 when everything held and the row changed under it. No second query re-derives a refusal.
import { type AnyColumn, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { conflict, notFound } from "../core/errors";
import { type Executor, statementBound } from "../db/client";
import { contextSet } from "../db/event-context";
import { inTeams } from "../db/scope";
import type { StatementCaller as Caller } from "./statement-caller";

/**
 * A rule of an operation, as a condition on the target row (null counts as false), and the refusal when it fails (which
 * may read the target's columns, when it says so: a refusal that names what failed).
 */
export interface Guard {
  holds: SQL;
  refusal: (target: TargetRow) => Error;
  /** Its refusal reads the target's columns: the statement then answers the whole target row, not its flags alone. */
  readsTarget?: true;
}

/** The row an operation acts on (the task it updates, the team it creates a task in), in the caller's workspace. */
export interface Target {
  /** The FROM clause: the target's table and whatever its columns and rules join. */
  from: SQL;
  /** The one row: the caller's workspace and the id or reference. */
  where: SQL;
  /**
   * The team the row belongs to (its column or an expression over `from`), or null for a workspace-wide row: a
   * credential bound to other teams finds no target (404, as another workspace's record).
   */
  team: SQLWrapper | null;
  /** What the write reads of the target, by name; `id` is required. */
  columns: { id: SQL | AnyColumn } & Record<string, SQL | AnyColumn>;
  guards: Guard[];
  /** The NOT_FOUND's noun ("Task"). */
  name: string;
  /** The table whose row a standalone read of the target locks. */
  table?: PgTable;
}

const flag = (i: number) => sql.identifier(`g${i}`);

/** The target's condition within the caller's teams (a read that lists under a target uses it too). */
export const targetWhere = (caller: Caller, target: Target, where = target.where): SQL =>
  target.team === null ? where : sql`${where} and ${inTeams(caller.actor.teams, target.team)}`;

/** The target as a SELECT of at most one row, within the caller's teams: its columns and one boolean per rule. */
function targetSelect(caller: Caller, target: Target, where = target.where): SQL {
  const columns = Object.entries(target.columns).map(([name, value]) => sql`${value} as ${sql.identifier(name)}`);
  const guards = target.guards.map((guard, i) => sql`coalesce(${guard.holds}, false) as ${flag(i)}`);
  return sql`select ${sql.join([...columns, ...guards], sql`, `)} from ${target.from} where ${targetWhere(caller, target, where)} limit 1`;
}

/** A target row: its columns and rule flags. */
type TargetRow = Record<string, unknown>;
type Lock = "update" | "no key update" | "key share";

/** The row lock of a target's SELECT, on its table (none when the target names none). */
const locking = (target: Target, lock?: Lock) => (lock && target.table ? sql` for ${sql.raw(lock)} of ${target.table}` : sql``);

/** Throws the refusal the flags of `row` name (the first rule that fails); the row otherwise. */
function refuseUnless(target: Target, row: TargetRow): TargetRow {
  const failed = target.guards.findIndex((_, i) => row[`g${i}`] !== true);
  if (failed >= 0) throw target.guards[failed].refusal(row);
  return row;
}

/**
 * The target read by itself (in a checked transaction, before the links a body names are checked), locked when the
 * target names its table: 401, 404 or the first rule's refusal, from this one query.
 */
export async function readTarget<R = TargetRow>(tx: Executor, caller: Caller, target: Target, lock?: Lock): Promise<R> {
  const { rows } = await tx.execute<TargetRow>(sql`${targetSelect(caller, target)}${locking(target, lock)}`);
  if (!rows[0]) return caller.missing(target.name);
  return refuseUnless(target, rows[0]) as R;
}

export interface Write<T> {
  /** The statement's CTEs after `target` (each `name as (…)`), given the target's id when every rule holds. */
  ctes: SQL[];
  /** The answer, read in the same statement (e.g. the written record's JSON); null when nothing was written. */
  result: SQL<T | null>;
}

/**
 * ONE statement: `target`, then the write (`write(allowed)`: CTEs that change rows where the target's id is `allowed`,
 * which is null unless every rule holds), then the result. Returns the result, or throws why there is none. `lock`: the
 * target's row is locked first, so a concurrent write of it is waited for and the rules read what it left (a claim
 * races on who holds the task). `before`: statements sent with it as one transaction, ahead of it, with no decision
 * between them (a lock whose wait the statement's snapshot must follow): still one round trip over the HTTP query
 * (RequestDb.executeWrite).
 */
export async function guardedWrite<T>(
  caller: Caller,
  target: Target,
  write: (allowed: SQL) => Write<T>,
  { lock, before = [] }: { lock?: Lock; before?: SQL[] } = {},
): Promise<T> {
  const allowed = sql`(select id from target where ${sql.join(
    target.guards.map((_, i) => flag(i)),
    sql` and `,
  )})`;
  const { ctes, result } = write(target.guards.length ? allowed : sql`(select id from target)`);
  // The events of what it writes say who wrote (docs/events.md), and its lock waits are bounded by the server (a 503
  // then means nothing was written: db/client.ts): both set before the target row is read.
  const context = caller.writing();
  const where = sql`${target.where} and ${statementBound}${context ? sql` and ${contextSet(context)}` : sql``}`;
  const flags = target.guards.map((_, i) => sql`${flag(i)}`);
  // The target's flags; its whole row when a refusal reads it.
  const statement = sql`
    with target as (${targetSelect(caller, target, where)}${locking(target, lock)})${ctes.length ? sql`, ${sql.join(ctes, sql`, `)}` : sql``}
    select ${caller.live} as live,
      (select ${
        target.guards.some((g) => g.readsTarget)
          ? sql`row_to_json(target)`
          : sql`json_build_object(${sql.join(
              target.guards.map((_, i) => sql`${sql.raw(`'g${i}'`)}, ${flags[i]}`),
              sql`, `,
            )})`
      } from target) as target,
      ${result} as result`;
  type Answer = { live: boolean; target: TargetRow | null; result: T | null };
  const [row] = (await caller.executeWrite<Answer>([...before, statement])).rows;
  if (row.result !== null && row.result !== undefined) {
    caller.touch();
    return row.result;
  }
  if (!row.live) throw await caller.refused();
  if (!row.target) throw notFound(target.name);
  refuseUnless(target, row.target);
  throw conflict(`The ${target.name.toLowerCase()} changed meanwhile; retry the request`);
}

/** A DELETE decided by its own statement: the target's row in `table` goes (its dependents as the foreign keys say). */
export async function guardedDelete(caller: Caller, target: Target, table: PgTable & { id: AnyColumn }): Promise<void> {
  await guardedWrite(caller, target, (allowed) => ({
    ctes: [sql`deleted as (delete from ${table} where ${table.id} = ${allowed} returning id)`],
    result: sql<boolean | null>`(select true from deleted)`,
  }));
}

type UpdatedTable = PgTable & { id: AnyColumn; updatedAt: AnyColumn };

/**
 * The write of a PATCH decided by its own statement: the CTE `<name> as (update … where id = allowed returning *)`,
 * named like the table so the answer's JSON reads the changed row. `updatedAt` moves only when `changing` (an empty
 * body writes nothing visible).
 */
export function updatedRow(
  caller: Caller,
  name: string,
  table: UpdatedTable,
  values: Record<string, unknown>,
  allowed: SQL,
  changing = Object.keys(values).length > 0,
): SQL {
  const update = caller.db
    .update(table)
    .set({ ...values, updatedAt: changing ? sql`now()` : sql`${table.updatedAt}` } as never)
    .where(sql`${table.id} = ${allowed}`)
    .returning();
  return sql`${sql.identifier(name)} as (${update.getSQL()})`;
}
