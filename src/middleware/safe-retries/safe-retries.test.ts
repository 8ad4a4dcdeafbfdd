import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { api, expectAtomicWrite, uniqueEmail } from "../../../test/helpers/api";
import { addMember, type Member, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../../test/helpers/fixtures";
import { joinWorkspaceWithKey } from "../../auth/accounts/membership";
import { hashApiKey } from "../../auth/api-keys";
import { signAccessToken } from "../../auth/jwt";

const retried = (path: string, body: unknown, key: string | undefined, idempotencyKey: string) =>
  api("POST", path, { body, key, headers: { "idempotency-key": idempotencyKey } });

const count = (table: string, column: string, value: string) =>
  withDb(async (db) =>
    Number(
      (
        await db.execute<{ n: number }>(
          sql`select count(*)::int as n from ${sql.identifier(table)} where ${sql.identifier(column)} = ${value}`,
        )
      ).rows[0].n,
    ),
  );

describe("Idempotency-Key on POST", () => {
  let t: Tenant;
  let other: Member;
  let team: TeamFixture;
  beforeAll(async () => {
    t = await newTenant("Retries");
    other = await addMember(t, "MEMBER");
    team = await newTeam(t);
  });

  it("a repeat answers what the first answered (status, body, Location) and creates one task", async () => {
    const key = crypto.randomUUID();
    const title = `Once ${key}`;
    const first = await retried("/tasks", { teamId: team.id, title }, t.owner.key, key);
    expect(first.status).toBe(201);
    expectAtomicWrite(first);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await retried("/tasks", { teamId: team.id, title }, t.owner.key, key);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await count("tasks", "title", title)).toBe(1);
  });

  it("the same key with another body is 422 and writes nothing", async () => {
    const key = crypto.randomUUID();
    expect((await retried("/tasks", { teamId: team.id, title: `A ${key}` }, t.owner.key, key)).status).toBe(201);
    const reused = await retried("/tasks", { teamId: team.id, title: `B ${key}` }, t.owner.key, key);
    expect(reused.status).toBe(422);
    expect(reused.body.errors["Idempotency-Key"]).toBeDefined();
    expect(await count("tasks", "title", `B ${key}`)).toBe(0);
    // …and with another path too.
    expect((await retried("/labels", { name: `L ${key}`, color: "#000000" }, t.owner.key, key)).status).toBe(422);
  });

  it("is kept per user: another user's same key runs anew", async () => {
    const key = crypto.randomUUID();
    const title = `Per user ${key}`;
    expect((await retried("/labels", { name: title, color: "#000000" }, t.owner.key, key)).status).toBe(201);
    const theirs = await retried("/labels", { name: `${title} 2`, color: "#000000" }, other.key, key);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
  });

  it("is kept per workspace: the same user's same request in another workspace runs there", async () => {
    const key = crypto.randomUUID();
    const body = { name: `Per workspace ${key}`, color: "#000000" };
    const elsewhere = await newTenant("Retries elsewhere");
    const secondKey = await withDb((db) =>
      joinWorkspaceWithKey(db, { workspaceId: elsewhere.workspaceId, userId: t.owner.userId, role: "MEMBER", keyName: "second" }),
    );
    expect((await retried("/labels", body, t.owner.key, key)).status).toBe(201);
    const there = await retried("/labels", body, secondKey, key);
    expect(there.status).toBe(201);
    expect(there.headers.get("idempotent-replayed")).toBeNull();
    expect(await count("labels", "name", body.name)).toBe(2);
  });

  it("an expired key does not get its user's stored answer", async () => {
    const key = crypto.randomUUID();
    const member = await addMember(t);
    const body = { name: `Expired ${key}`, color: "#000000" };
    expect((await retried("/labels", body, member.key, key)).status).toBe(201);
    await withDb((db) => db.execute(sql`update api_keys set expires_at = now() - interval '1 second' where user_id = ${member.userId}`));
    const replay = await retried("/labels", body, member.key, key);
    expect(replay.status).toBe(401);
    expect(replay.headers.get("idempotent-replayed")).toBeNull();
  });

  it("a token of someone who left the workspace does not get their stored answer", async () => {
    const key = crypto.randomUUID();
    const member = await addMember(t);
    const { token } = await signAccessToken(env, { sub: member.userId, wid: t.workspaceId });
    const bearer = { authorization: `Bearer ${token}`, "idempotency-key": key };
    const body = { name: `Left ${key}`, color: "#000000" };
    expect((await api("POST", "/labels", { body, headers: bearer })).status).toBe(201);
    await withDb((db) => db.execute(sql`delete from workspace_members where user_id = ${member.userId}`));
    const replay = await api("POST", "/labels", { body, headers: bearer });
    expect(replay.status).toBe(401);
    expect(replay.headers.get("idempotent-replayed")).toBeNull();
  });

  it("a repeat while the first still runs is 409", async () => {
    const key = crypto.randomUUID();
    // Hold the key's lock, as a first request still in its transaction does.
    let release!: () => void;
    let locked!: () => void;
    const held = new Promise<void>((r) => (locked = r));
    // Idempotency keys are the credential's own (a key's answers never replay for another key of the same user).
    const scope = `key:${await hashApiKey(t.owner.key)}`;
    const holder = withDb((db) =>
      db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${scope} || ' ' || ${key}, 0))`);
        locked();
        await new Promise<void>((r) => (release = r));
      }),
    );
    await held;
    const busy = await retried("/tasks", { teamId: team.id, title: `Busy ${key}` }, t.owner.key, key);
    release();
    await holder;
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe("CONFLICT");
    expect(await count("tasks", "title", `Busy ${key}`)).toBe(0);
    // Once it is free, the request runs.
    expect((await retried("/tasks", { teamId: team.id, title: `Busy ${key}` }, t.owner.key, key)).status).toBe(201);
  });

  it("concurrent repeats: one does the work, the others get 409 or its answer", async () => {
    const key = crypto.randomUUID();
    const title = `Concurrent ${key}`;
    const answers = await Promise.all([1, 2, 3, 4].map(() => retried("/tasks", { teamId: team.id, title }, t.owner.key, key)));
    expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true);
    expect(await count("tasks", "title", title)).toBe(1);
  });

  it("a refused request is not kept: the corrected retry with the same key runs", async () => {
    const key = crypto.randomUUID();
    const bad = await retried("/tasks", { teamId: team.id, title: "" }, t.owner.key, key);
    expect(bad.status).toBe(422);
    const again = await retried("/tasks", { teamId: team.id, title: "" }, t.owner.key, key);
    expect(again.status).toBe(422);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
  });

  it("replays a new API key's raw key, which is stored sealed, never in plain text", async () => {
    const key = crypto.randomUUID();
    const first = await retried("/api-keys", { name: "retried" }, t.owner.key, key);
    expect(first.status).toBe(201);
    const again = await retried("/api-keys", { name: "retried" }, t.owner.key, key);
    expect(again.body.key).toBe(first.body.key);
    const stored = await withDb(async (db) => (await db.execute(sql`select * from idempotency_keys where key = ${key}`)).rows);
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(first.body.key);
    expect(stored[0].sealed_body).not.toContain("apiKey");
  });

  it("works on public routes (per client address) and after 24 h runs anew", async () => {
    const key = crypto.randomUUID();
    const email = uniqueEmail("retry");
    const first = await retried("/signup/start", { email }, undefined, key);
    expect(first.status).toBe(200);
    const again = await retried("/signup/start", { email }, undefined, key);
    expect(again.body).toEqual(first.body);
    await withDb((db) => db.execute(sql`update idempotency_keys set created_at = now() - interval '25 hours' where key = ${key}`));
    const later = await retried("/signup/start", { email }, undefined, key);
    expect(later.status).toBe(200);
    expect(later.body.data.signup_token).not.toBe(first.body.data.signup_token);
    expect(await count("idempotency_keys", "key", key)).toBe(1);
  });

  it("refuses a key outside 1..255 characters with 400", async () => {
    const res = await retried("/labels", { name: "long key", color: "#000000" }, t.owner.key, "k".repeat(256));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("BAD_REQUEST");
  });

  it("without the header a POST costs what it did", async () => {
    const res = await api("POST", "/tasks", { key: t.owner.key, body: { teamId: team.id, title: "plain" } });
    expect([res.queries, res.transactions]).toEqual([1, 0]);
  });
});
