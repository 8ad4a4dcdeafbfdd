// What a statement needs from whoever calls it: the narrow side of auth's `Caller`, which satisfies it, so the
// statement builders of store/ know no credential, token or rule of auth/.
import type { SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import type { EventContext } from "../db/event-context";
import type { Reach } from "../db/scope";
import type { CursorKey } from "./list";

/**
 * Who acts, in a statement that authenticates and authorizes itself: plain values of a loaded principal, or SQL read
 * from the credential in the statement (null for a credential that is not live).
 */
export interface Actor extends Reach {
  user: string | SQL<string>;
  role: string | SQL<string>;
}

export interface StatementCaller {
  /** The request's database (inside its transaction, when one is open). */
  readonly db: Db;
  /** The caller in a statement. */
  readonly actor: Actor;
  /** True in SQL when the credential is live and grants the operation's scope. */
  readonly live: SQL<boolean>;
  /** What list cursors are signed with and bound to. */
  readonly cursorKey: CursorKey;
  /** A statement that writes starts: the request's event context it sets. */
  writing(): EventContext | undefined;
  /**
   * Runs a statement that writes (after `statements[0..-1]`, sent with it as one transaction with no decision between
   * them), reading the write's position (PM-Position) in the same round trip: the last statement's rows.
   */
  executeWrite<R extends Record<string, unknown>>(statements: SQL[]): Promise<{ rows: R[] }>;
  /** As executeWrite, in the same round trip: every statement's rows. */
  executeWrites(statements: SQL[]): Promise<Record<string, unknown>[][]>;
  /** Reads from one snapshot in one round trip (RequestDb.readTogether): every statement's rows. */
  readTogether(statements: SQL[]): Promise<Record<string, unknown>[][]>;
  /** After a request it served: records the credential's use. */
  touch(): void;
  /** Why a statement that found the credential not live wrote or read nothing: 401, or 403 naming the scope. */
  refused(): Promise<Error>;
  /** NOT_FOUND(`what`), unless the credential is not live (401) or lacks the scope (403). */
  missing(what: string): Promise<never>;
  /** A read scoped by `actor`: its answer, or when it finds nothing (NOT_FOUND), 401 if the credential is not live. */
  read<T>(read: (actor: Actor) => Promise<T>): Promise<T>;
  /** A list page read scoped by `actor`: an empty one asks whether the credential is live. */
  list<T>(read: (actor: Actor) => Promise<T[]>): Promise<T[]>;
}
