// Secrets: API keys, sign-up and login tokens and codes, device codes and invite tokens are stored only as hashes
// (every table is read after creating each kind); JWTs are ES256 only (alg:none, HS256 signed with the public key
// and a foreign key are 401); no secret, SQL or stack trace reaches a response or a log line.
import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { Hono } from "hono";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { signAccessToken } from "../src/auth/jwt";
import { base64url, sha256Hex } from "../src/core/crypto";
import { RequestDb } from "../src/db/client";
import { errorResponse } from "../src/http/error-mapper";
import { api, get, post, uniqueEmail } from "./helpers/api";
import { newTenant, type Tenant, withDb } from "./helpers/fixtures";
import { codeIn, mailTo, startSignup } from "./helpers/signup";

/** Everything the app wrote to the console while `work` ran. */
async function consoleDuring<T>(work: () => Promise<T>): Promise<{ result: T; logged: string }> {
  const spies = (["log", "info", "warn", "error", "debug"] as const).map((level) => vi.spyOn(console, level));
  try {
    const result = await work();
    const logged = spies.flatMap((spy) =>
      spy.mock.calls.map((args) => args.map((a) => (a instanceof Error ? a.stack : String(a))).join(" ")),
    );
    return { result, logged: logged.join("\n") };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

/** Tables whose rows may hold a raw secret by design: the dev mailbox is the local inbox, it holds the emails sent. */
const INBOXES = new Set(["dev_mailbox"]);

/** The database's transaction id counter now: a row inserted or updated afterwards has an `xmin` at least this. */
const currentXid = () =>
  withDb(async (db) => (await db.execute<{ xid: string }>(sql`select pg_current_xact_id()::text as xid`)).rows[0].xid);

/**
 * Tables (outside the inboxes) whose rows contain any of `secrets` verbatim, with the count of such rows. Only rows
 * written since `since` (their `xmin`) can hold a secret made after it, so only those are read as text: the other
 * files' rows on this server (a team of 100,000 tasks, their events) made this scan most of the file's time.
 */
async function tablesHolding(secrets: string[], since: string): Promise<Record<string, number>> {
  return withDb(async (db) => {
    const { rows } = await db.execute<{ table_name: string }>(
      sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
    );
    expect(rows.length).toBeGreaterThan(10);
    const found: Record<string, number> = {};
    for (const { table_name } of rows) {
      if (INBOXES.has(table_name)) continue;
      const { rows: hits } = await db.execute<{ n: number }>(
        sql`select count(*)::int as n from ${sql.identifier(table_name)} t
            where t.xmin::text::bigint >= ${since}::bigint and exists (select 1 from unnest(array[${sql.join(
              secrets.map((s) => sql`${s}`),
              sql`, `,
            )}]::text[]) s where strpos(t::text, s) > 0)`,
      );
      if (hits[0].n > 0) found[table_name] = hits[0].n;
    }
    return found;
  });
}

const countWhere = (table: string, column: string, value: string) =>
  withDb(async (db) => {
    const { rows } = await db.execute<{ n: number }>(
      sql`select count(*)::int as n from ${sql.identifier(table)} where ${sql.identifier(column)} = ${value}`,
    );
    return rows[0].n;
  });

describe("secrets at rest", () => {
  it("every kind of secret is stored only as its SHA-256: no table holds a raw one, and the hash is there", async () => {
    const since = await currentXid();
    const { result: secrets, logged } = await consoleDuring(async () => {
      const email = uniqueEmail("secrets");
      const signup = await startSignup(email);
      const done = await post("/signup/complete", {
        signup_token: signup.token,
        code: signup.code,
        name: "Sec Ret",
        workspace_name: "Secrets Inc",
      });
      expect(done.status, JSON.stringify(done.body)).toBe(201);
      const signupKey: string = done.body.data.api_token;

      const login = await post("/login/start", { email });
      expect(login.status).toBe(200);
      const loginToken: string = login.body.data.login_token;
      const loginCode = codeIn(await mailTo(email, 2));
      const loggedIn = await post("/login/complete", { login_token: loginToken, code: loginCode });
      expect(loggedIn.status, JSON.stringify(loggedIn.body)).toBe(200);
      const loginKey: string = loggedIn.body.data.api_token;

      const created = await post("/api-keys", { name: "secret check" }, signupKey);
      expect(created.status).toBe(201);
      const apiKey: string = created.body.key;

      const device = await post("/auth/device/code", { client_name: "secrets test" });
      expect(device.status).toBe(200);
      const deviceCode: string = device.body.device_code;
      expect((await post("/auth/device/approve", { user_code: device.body.user_code }, signupKey)).status).toBe(200);
      const token = await post("/auth/device/token", { device_code: deviceCode });
      expect(token.status, JSON.stringify(token.body)).toBe(200);
      const accessToken: string = token.body.access_token;

      const invitee = uniqueEmail("secret-invitee");
      expect((await post("/invites", { email: invitee }, signupKey)).status).toBe(201);
      const inviteToken = /Invite token: (\S+)/.exec((await mailTo(invitee)).text)![1];
      return {
        long: { signupToken: signup.token, signupKey, loginToken, loginKey, apiKey, deviceCode, accessToken, inviteToken },
        codes: { signupCode: signup.code, loginCode },
        invitee,
      };
    });

    const raw = Object.values(secrets.long);
    for (const value of raw) expect(value.length).toBeGreaterThanOrEqual(32);
    expect(await tablesHolding(raw, since)).toEqual({});
    // The control: what is stored as it is, an invite's address, is found by the same scan.
    expect(await tablesHolding([secrets.invitee], since)).toMatchObject({ invites: 1 });

    // Stored, as the hash: each key, token and code can be found by its SHA-256.
    for (const key of [secrets.long.signupKey, secrets.long.loginKey, secrets.long.apiKey])
      expect(await countWhere("api_keys", "key_hash", await sha256Hex(key))).toBe(1);
    expect(await countWhere("auth_codes", "token_hash", await sha256Hex(secrets.long.signupToken))).toBe(1);
    expect(await countWhere("auth_codes", "token_hash", await sha256Hex(secrets.long.loginToken))).toBe(1);
    expect(await countWhere("auth_codes", "code_hash", await sha256Hex(secrets.codes.signupCode))).toBeGreaterThanOrEqual(1);
    expect(await countWhere("auth_codes", "code_hash", await sha256Hex(secrets.codes.loginCode))).toBeGreaterThanOrEqual(1);
    expect(await countWhere("device_authorizations", "device_code_hash", await sha256Hex(secrets.long.deviceCode))).toBe(1);
    expect(await countWhere("invites", "token_hash", await sha256Hex(secrets.long.inviteToken))).toBe(1);
    // The six-digit codes are too short to search every table for; their own rows hold them only hashed.
    const codeRows = await withDb(async (db) => {
      const hashes = [await sha256Hex(secrets.long.signupToken), await sha256Hex(secrets.long.loginToken)];
      const { rows } = await db.execute<{ row: string }>(
        sql`select t::text as row from auth_codes t where token_hash in (${sql.join(hashes, sql`, `)})`,
      );
      return rows.map((r) => r.row);
    });
    expect(codeRows).toHaveLength(2);
    for (const row of codeRows) for (const code of Object.values(secrets.codes)) expect(row).not.toContain(code);

    // Nothing of it in the app's log lines either.
    for (const value of [...raw, ...Object.values(secrets.codes)]) expect(logged).not.toContain(value);
  });
});

describe("JWT algorithms are pinned to ES256", () => {
  let tenant: Tenant;
  const claims = () => ({
    sub: tenant.owner.userId,
    wid: tenant.workspaceId,
    iss: env.JWT_ISSUER,
    aud: env.JWT_AUDIENCE,
    exp: Math.floor(Date.now() / 1000) + 600,
  });
  const part = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)));
  const me = (token: string) => api("GET", "/me", { headers: { authorization: `Bearer ${token}` } });

  async function hs256(secret: string) {
    const unsigned = `${part({ alg: "HS256", typ: "JWT" })}.${part(claims())}`;
    const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return `${unsigned}.${base64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(unsigned))))}`;
  }

  beforeAll(async () => {
    tenant = await newTenant("Jwt Pins");
  });

  it("accepts the API's own ES256 token (the control)", async () => {
    const { token } = await signAccessToken(env, { sub: tenant.owner.userId, wid: tenant.workspaceId });
    expect((await me(token)).status).toBe(200);
  });

  it("refuses alg:none, HS256 keyed with the public key (JWK or SPKI PEM) and ES256 from another key: 401", async () => {
    const jwks = (await get("/.well-known/jwks.json")).body.keys[0];
    const publicKey = await crypto.subtle.importKey(
      "jwk",
      { kty: "EC", crv: "P-256", x: jwks.x, y: jwks.y },
      { name: "ECDSA", namedCurve: "P-256" },
      true,
      ["verify"],
    );
    const spki = btoa(String.fromCharCode(...new Uint8Array((await crypto.subtle.exportKey("spki", publicKey)) as ArrayBuffer)));
    const pem = `-----BEGIN PUBLIC KEY-----\n${spki.match(/.{1,64}/g)!.join("\n")}\n-----END PUBLIC KEY-----\n`;

    const foreign = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const { key_ops: _ops, ext: _ext, ...foreignJwk } = (await crypto.subtle.exportKey("jwk", foreign.privateKey)) as JsonWebKey;
    const { token: foreignToken } = await signAccessToken(
      { ...env, JWT_PRIVATE_JWK: JSON.stringify(foreignJwk) },
      { sub: tenant.owner.userId, wid: tenant.workspaceId },
    );

    const forged = {
      none: `${part({ alg: "none", typ: "JWT" })}.${part(claims())}.`,
      hs256Jwk: await hs256(JSON.stringify(jwks)),
      hs256Pem: await hs256(pem),
      hs256X: await hs256(jwks.x),
      foreignEs256: foreignToken,
    };
    for (const [name, token] of Object.entries(forged)) {
      const res = await me(token);
      expect(res.status, name).toBe(401);
      expect(res.body.error.code, name).toBe("UNAUTHORIZED");
    }
  });
});

describe("errors say nothing internal", () => {
  /** The app's error mapper behind a route that throws `err`: the response and what was logged. */
  async function mapped(err: unknown) {
    const app = new Hono().get("/", () => {
      throw err;
    });
    app.onError(errorResponse);
    return consoleDuring(async () => {
      const res = await app.request("/");
      return { status: res.status, text: await res.text() };
    });
  }

  const INTERNALS = /\bselect\b|\bfrom\b|no_such_table|\n\s+at |\.ts:\d+|postgres(ql)?:\/\//i;

  it("a PostgreSQL error the mapper does not know is a bare 500: no SQL, parameter or stack in the body or the log", async () => {
    const secret = `pmk_${"s".repeat(43)}`;
    const failure = await withDb((db) => db.execute(sql`select * from no_such_table where key = ${secret}`)).catch((e: unknown) => e);
    expect(String((failure as Error).message)).toContain("no_such_table"); // a real DrizzleQueryError, SQL and parameters inside
    const { result, logged } = await mapped(failure);
    expect(result.status).toBe(500);
    const body = JSON.parse(result.text);
    expect(body).toEqual({ error: { code: "INTERNAL", message: "Internal error", details: { requestId: undefined } } });
    expect(result.text).not.toContain(secret);
    expect(result.text).not.toMatch(INTERNALS);
    // The log line keeps the driver's message and SQLSTATE, which say what failed, and nothing else.
    expect(logged).toMatch(/42P01/);
    expect(logged).not.toContain(secret);
    expect(logged).not.toMatch(/\bselect\b|\n\s+at /i);
  });

  it("an unreachable database is 503 without the connection string, its password or a stack, in the body or the log", async () => {
    const password = "never-print-me";
    const rdb = new RequestDb({ ...env, DATABASE_URL: `postgres://postgres:${password}@127.0.0.1:9/app` });
    const failure = await rdb.db.execute(sql`select 1`).catch((e: unknown) => e);
    await rdb.close();
    const { result, logged } = await mapped(failure);
    expect(result.status).toBe(503);
    expect(JSON.parse(result.text).error.code).toBe("UNAVAILABLE");
    for (const text of [result.text, logged]) {
      expect(text).not.toContain(password);
      expect(text).not.toMatch(/\n\s+at /);
    }
    expect(result.text).not.toMatch(INTERNALS);
  });

  it("a thrown Error's message and stack stay out of the 500 body; the log has the message only", async () => {
    const { result, logged } = await mapped(new Error("token pmk_leaky in a bug"));
    expect(result.status).toBe(500);
    expect(result.text).not.toContain("pmk_leaky");
    expect(logged).toContain("token pmk_leaky in a bug"); // the message is what tells the operator what broke
    expect(logged).not.toMatch(/\n\s+at /);
  });
});
