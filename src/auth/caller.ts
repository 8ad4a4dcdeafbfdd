import { type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { workspaceMembers } from "../../drizzle/schema";
import { AppError } from "../core/errors";
import type { Db, RequestDb, Tx } from "../db/client";
import type { Env } from "../env";
import { type CursorKey, type ListParams, type ListSpec, parseListParams } from "../http/list";
import { type Credential, credentialScope, memberColumn } from "./credential";
import { type Actor, loadPrincipal, type Principal, principalActor, touchApiKey } from "./principal";

export const unauthorized = () => new AppError("UNAUTHORIZED", "Authentication required: send a valid svc-api-key header or Bearer token");

// Keys whose lastUsedAt this isolate moved recently: the update then runs at most once a minute per key here.
const recentlyTouched = new Map<string, number>();

/**
 * The one identity an operation gets: who calls (a credential checked as far as it can be without the database) and
 * the request's database. The common operation is one statement that authenticates itself with `actor` (the caller
 * read from the credential inside the statement); an operation that needs the caller's name, type or email loads the
 * principal (one query, once per request). Either way a credential that is not live is 401 (docs/api.md, order of
 * checks).
 */
export class Caller {
  #principal: Principal | undefined;
  #loading: Promise<Principal | null> | undefined;

  constructor(
    readonly credential: Credential,
    private readonly rdb: RequestDb,
    private readonly env: Pick<Env, "CURSOR_SECRET">,
  ) {}

  /** The request's database (inside its transaction, when one is open). */
  get db(): Db {
    return this.rdb.db;
  }

  /**
   * Runs `work` in one transaction of the request's database: every query of the operation (`caller.db` included) runs
   * in it; committed when `work` resolves.
   */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.rdb.inTransaction(work);
  }

  /** A statement that writes starts: the request's event context it sets (docs/events.md). */
  writing() {
    return this.rdb.writing();
  }

  /** The caller in a statement: the loaded values, or SQL that reads them from the credential (null when it is not live). */
  get actor(): Actor {
    if (this.#principal) return principalActor(this.#principal);
    const member = (column: AnyPgColumn) => memberColumn(this.credential, column);
    return { workspace: member(workspaceMembers.workspaceId), user: member(workspaceMembers.userId), role: member(workspaceMembers.role) };
  }

  /** True in SQL when the credential is live (a constant once the principal is loaded). */
  get live(): SQL<boolean> {
    return this.#principal ? sql<boolean>`true` : sql<boolean>`(${this.actor.workspace} is not null)`;
  }

  /** The caller's user, workspace and role: one query the first time; 401 when the credential is not live. */
  async principal(): Promise<Principal> {
    const principal = await this.#load();
    if (!principal) throw unauthorized();
    return principal;
  }

  /** Whether the credential is live (the principal's query, once). */
  async holds(): Promise<boolean> {
    return (await this.#load()) !== null;
  }

  #load(): Promise<Principal | null> {
    this.#loading ??= loadPrincipal(this.rdb.db, this.credential).then((p) => {
      this.#principal = p ?? undefined;
      return p;
    });
    return this.#loading;
  }

  /**
   * A read scoped by `actor` (so it authenticates in the same round trip): its answer, or when it finds nothing
   * (NOT_FOUND), 401 if the credential is not live.
   */
  async read<T>(read: (actor: Actor) => Promise<T>): Promise<T> {
    try {
      const found = await read(this.actor);
      this.touch();
      return found;
    } catch (err) {
      if (err instanceof AppError && err.code === "NOT_FOUND" && !(await this.holds())) throw unauthorized();
      throw err;
    }
  }

  /** A list page read scoped by `actor`: a page with rows proves the credential; an empty one asks (401 when not live). */
  list<T>(read: (actor: Actor) => Promise<T[]>): Promise<T[]> {
    return this.read(async (actor) => {
      const rows = await read(actor);
      if (rows.length === 0 && !(await this.holds())) throw unauthorized();
      return rows;
    });
  }

  /** NOT_FOUND(`what`) for a read or write that found nothing, unless the credential is not live (401). */
  async missing(what: string): Promise<never> {
    if (!(await this.holds())) throw unauthorized();
    throw new AppError("NOT_FOUND", `${what} not found`);
  }

  /** What list and search cursors are signed with and bound to (the credential, and so its workspace). */
  get cursorKey(): CursorKey {
    return { scope: credentialScope(this.credential), secret: this.env.CURSOR_SECRET };
  }

  /** A list's parameters from a query string, cursors bound to this caller. */
  listParams(spec: ListSpec, query: URLSearchParams): Promise<ListParams> {
    return parseListParams(query, spec, this.cursorKey);
  }

  /** After a request it served: records the key's use (lastUsedAt), once a minute per key, after the response. */
  touch(): void {
    const credential = this.credential;
    if (credential.kind !== "apiKey") return;
    const now = Date.now();
    if (now - (recentlyTouched.get(credential.keyHash) ?? 0) < 60_000) return;
    recentlyTouched.set(credential.keyHash, now);
    if (recentlyTouched.size > 10_000) recentlyTouched.clear();
    this.rdb.defer((db) => touchApiKey(db, credential.keyHash));
  }
}
