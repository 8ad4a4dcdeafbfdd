import { type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { workspaceMembers } from "../../drizzle/schema";
import { AppError, forbidden } from "../core/errors";
import type { Scope } from "../core/scopes";
import type { Db, RequestDb, Tx } from "../db/client";
import { relayEmails } from "../email/relay";
import type { Env } from "../env";
import { type CursorKey, type ListParams, type ListSpec, parseListParams } from "../store/list";
import type { Actor, StatementCaller } from "../store/statement-caller";
import { type Credential, credentialScope, credentialTeams, credentialWorkspace, memberColumn } from "./credential";
import { touchGrant } from "./oauth/grants";
import { loadPrincipal, type Principal, principalActor, touchApiKey } from "./principal";

const UNAUTHORIZED_WHY = {
  none: "send a valid svc-api-key header or Bearer token",
  apiKey: "the svc-api-key header holds no valid API key (unknown, expired or deleted)",
  token: "the Bearer token is not valid (expired, revoked, or not issued by this service)",
};

/**
 * 401, saying what was wrong with what came: nothing usable, a key, or a token. A client that sent a key (the MCP
 * Inspector with `--header`) can then tell a bad key from a login it should start.
 */
export const unauthorized = (presented: keyof typeof UNAUTHORIZED_WHY = "none") =>
  new AppError("UNAUTHORIZED", `Authentication required: ${UNAUTHORIZED_WHY[presented]}`);

/** The 401 of a credential that is not live. */
export const unauthorizedFor = (credential: Credential) => unauthorized(credential.kind === "apiKey" ? "apiKey" : "token");

/** The 401 of a request without a usable credential: a token that did not verify, or nothing. */
export const unauthorizedRequest = (headers: { header(name: string): string | undefined }) =>
  unauthorized(headers.header("authorization") ? "token" : "none");

/** 403 for a credential without the scope an operation needs (docs/api.md, "Least privilege"). */
export const missingScope = (scope: Scope) => forbidden(`This credential lacks the scope ${scope}`, { requiredScope: scope });

// Keys whose lastUsedAt this isolate moved recently: the update then runs at most once a minute per key here.
const recentlyTouched = new Map<string, number>();

/** What a request's callers share: the principal, loaded at most once whichever scope each operation asks for. */
class Identity {
  principal: Principal | undefined;
  loading: Promise<Principal | null> | undefined;
}

/**
 * The one identity an operation gets: who calls (a credential checked as far as it can be without the database), the
 * scope the operation needs, and the request's database. The common operation is one statement that authenticates
 * itself with `actor` (the caller read from the credential inside the statement, null unless it is live and grants the
 * scope); an operation that needs the caller's name, type or email loads the principal (one query, once per request).
 * Either way a credential that is not live is 401, one without the scope 403 (docs/api.md, order of checks).
 */
export class Caller implements StatementCaller {
  constructor(
    readonly credential: Credential,
    private readonly rdb: RequestDb,
    private readonly env: Pick<Env, "CURSOR_SECRET"> & Partial<Pick<Env, "EMAIL_QUEUE" | "PUBLIC_BASE_URL">>,
    /** The scopes any one of which the operation needs, the first the one a 403 names (null: none, e.g. GET /me). */
    readonly scopes: readonly Scope[] | null,
    private readonly identity = new Identity(),
  ) {}

  /** The same caller for an operation that needs `scopes` (an MCP tool: those of the REST operation it stands for). */
  requiring(scopes: readonly Scope[] | null): Caller {
    return new Caller(this.credential, this.rdb, this.env, scopes, this.identity);
  }

  /**
   * Once the response is out, the outbox's due mail goes to the queue: what a write's triggers stored there (a mention's
   * email) leaves now instead of at the Cron Trigger's next run, a minute later.
   */
  relayMailAfterResponse(): void {
    const { EMAIL_QUEUE } = this.env;
    if (EMAIL_QUEUE) this.rdb.defer((db) => relayEmails(db, { ...this.env, EMAIL_QUEUE }, "due"));
  }

  /** The request's database (inside its transaction, when one is open). */
  get db(): Db {
    return this.rdb.db;
  }

  /**
   * Runs `work` in one transaction of the request's database: every query of the operation (`caller.db` included) runs
   * in it; committed when `work` resolves. An interactive transaction, so it goes over the WebSocket (src/db/client.ts):
   * use it only where a statement depends on the answer of one before it.
   */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    this.rdb.writesIn ??= credentialWorkspace(this.credential);
    return this.rdb.inTransaction(work);
  }

  /** A statement that writes starts: the request's event context it sets (docs/events.md). */
  writing() {
    this.rdb.writesIn ??= credentialWorkspace(this.credential);
    return this.rdb.writing();
  }

  /** The position of the request's last committed write (PM-Position: src/db/position.ts), once known. */
  get position(): string | undefined {
    return this.rdb.position;
  }

  /** A statement that writes, with the write's position in the same round trip (src/db/position.ts). */
  executeWrite<R extends Record<string, unknown>>(statements: SQL[]): Promise<{ rows: R[] }> {
    return this.rdb.executeWrite<R>(statements);
  }

  /** As executeWrite, in the same round trip: every statement's rows. */
  executeWrites(statements: SQL[]): Promise<Record<string, unknown>[][]> {
    return this.rdb.executeWrites(statements);
  }

  /** Reads from one snapshot in one round trip. */
  readTogether(statements: SQL[]): Promise<Record<string, unknown>[][]> {
    return this.rdb.readTogether(statements);
  }

  /** The caller in a statement: the loaded values, or SQL that reads them from the credential (null when it is not live). */
  get actor(): Actor {
    const loaded = this.identity.principal;
    if (loaded && this.#grants(loaded)) return principalActor(loaded);
    const member = (column: AnyPgColumn) => memberColumn(this.credential, column, this.scopes);
    return {
      workspace: member(workspaceMembers.workspaceId),
      user: member(workspaceMembers.userId),
      role: member(workspaceMembers.role),
      teams: credentialTeams(this.credential),
    };
  }

  /** True in SQL when the credential is live and grants the scope (a constant once the principal is loaded). */
  get live(): SQL<boolean> {
    const loaded = this.identity.principal;
    if (loaded) return this.#grants(loaded) ? sql<boolean>`true` : sql<boolean>`false`;
    return sql<boolean>`(${this.actor.workspace} is not null)`;
  }

  /** The caller's user, workspace, role and grants: one query the first time; 401 when not live, 403 without the scope. */
  async principal(): Promise<Principal> {
    const refusal = await this.refusal();
    if (refusal) throw refusal;
    return this.identity.principal!;
  }

  /** Why the operation may not run at all (401, or 403 naming the scope), or null when it may: the principal's query, once. */
  async refusal(): Promise<AppError | null> {
    const principal = await this.#load();
    if (!principal) return unauthorizedFor(this.credential);
    return this.#grants(principal) ? null : missingScope(this.scopes![0]);
  }

  /**
   * The caller's workspace, for the front Worker's read-your-writes (src/middleware/edge-workspace): free for a JWT
   * (in its payload) or a loaded principal, else the principal's query. Null when the credential is not live.
   */
  async workspaceId(): Promise<string | null> {
    if (this.credential.kind === "jwt") return this.credential.workspaceId;
    return (await this.#load())?.workspace.id ?? null;
  }

  /**
   * When the credential stops being live (ms since the epoch; null: never), for the front Worker, which serves no stored
   * answer past it (src/middleware/edge-workspace): free for a JWT (its `exp`), else the principal's query, as above.
   */
  async expiresAt(): Promise<number | null> {
    if (this.credential.kind === "jwt") return this.credential.expiresAt;
    return (await this.#load())?.expiresAt ?? null;
  }

  #grants(principal: Principal): boolean {
    return this.scopes === null || this.scopes.some((scope) => principal.scopes.includes(scope));
  }

  #load(): Promise<Principal | null> {
    const identity = this.identity;
    identity.loading ??= loadPrincipal(this.rdb.db, this.credential).then((p) => {
      identity.principal = p ?? undefined;
      return p;
    });
    return identity.loading;
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
      if (err instanceof AppError && err.code === "NOT_FOUND") throw (await this.refusal()) ?? err;
      throw err;
    }
  }

  /** A list page read scoped by `actor`: a page with rows proves the credential; an empty one asks (401/403 when it must). */
  list<T>(read: (actor: Actor) => Promise<T[]>): Promise<T[]> {
    return this.read(async (actor) => {
      const rows = await read(actor);
      if (rows.length === 0) {
        const refusal = await this.refusal();
        if (refusal) throw refusal;
      }
      return rows;
    });
  }

  /** Why a statement that found the credential not live did nothing: 401, or 403 naming the scope. */
  async refused(): Promise<AppError> {
    return (await this.refusal()) ?? unauthorized();
  }

  /** NOT_FOUND(`what`) for a read or write that found nothing, unless the credential is not live (401) or lacks the scope (403). */
  async missing(what: string): Promise<never> {
    throw (await this.refusal()) ?? new AppError("NOT_FOUND", `${what} not found`);
  }

  /** What list and search cursors are signed with and bound to (the credential, and so its workspace). */
  get cursorKey(): CursorKey {
    return { scope: credentialScope(this.credential), secret: this.env.CURSOR_SECRET };
  }

  /** A list's parameters from a query string, cursors bound to this caller. */
  listParams(spec: ListSpec, query: URLSearchParams): Promise<ListParams> {
    return parseListParams(query, spec, { ...this.cursorKey, teams: credentialTeams(this.credential) });
  }

  /** After a request it served: records the key's (or OAuth grant's) use (lastUsedAt), once a minute each, after the response. */
  touch(): void {
    const credential = this.credential;
    const used = credential.kind === "apiKey" ? credential.keyHash : credential.grantId;
    if (!used) return;
    const now = Date.now();
    if (now - (recentlyTouched.get(used) ?? 0) < 60_000) return;
    recentlyTouched.set(used, now);
    if (recentlyTouched.size > 10_000) recentlyTouched.clear();
    this.rdb.defer((db) => (credential.kind === "apiKey" ? touchApiKey(db, used) : touchGrant(db, used)));
  }
}
