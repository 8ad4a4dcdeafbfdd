import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { authCodes } from "../../../drizzle/schema";
import { sha256Hex } from "../../../src/core/crypto";
import { get, post, uniqueEmail } from "../../helpers/api";
import { withDb } from "../../helpers/fixtures";
import { codeIn, mailTo, startSignup } from "../../helpers/signup";

const complete = (signup_token: string, code: string, extra: Record<string, unknown> = {}) =>
  post("/signup/complete", { signup_token, code, name: "Ada Lovelace", workspace_name: "Analytical Engines", ...extra });

describe("sign-up", () => {
  it("signs up with the emailed code and the api_token works at once", async () => {
    const email = uniqueEmail("ada");
    const { token, code } = await startSignup(email);
    const done = await complete(token, code);
    expect(done.status).toBe(201);
    expect(done.headers.get("location")).toBeNull();
    expect(done.body.data).toEqual({
      api_token: expect.any(String),
      workspace_slug: expect.stringMatching(/^analytical-engines/),
      workspace_name: "Analytical Engines",
    });
    const me = await get("/me", done.body.data.api_token);
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ email, name: "Ada Lovelace", avatarUrl: null, humanId: null });
    expect(me.body.user.id).toMatch(/^user_[0-9a-z]{26}$/);
    expect(me.body.workspace).toMatchObject({ name: "Analytical Engines", slug: done.body.data.workspace_slug });
    expect(me.body.workspace.id).toMatch(/^ws_[0-9a-z]{26}$/);
    expect(me.body.workspace.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(me.body.role).toBe("OWNER");
  });

  it("GET /me costs at most 2 queries", async () => {
    const { token, code } = await startSignup(uniqueEmail());
    const key = (await complete(token, code)).body.data.api_token;
    await get("/me", key); // first use also records lastUsedAt, after the response
    const me = await get("/me", key);
    expect(me.status).toBe(200);
    expect(me.queries).toBeLessThanOrEqual(2);
    expect(me.headers.get("server-timing")).toMatch(/db;dur=[\d.]+;desc="\d+ queries"/);
  });

  it("delivers the code email through the queue consumer, not inside the request", async () => {
    const email = uniqueEmail("queued");
    const res = await post("/signup/start", { email });
    expect(res.status).toBe(200);
    // The request itself wrote no mail: the API only enqueued it (one query: the code row).
    expect(res.queries).toBe(1);
    const mail = await mailTo(email);
    expect(mail.to).toBe(email);
    expect(mail.subject).toMatch(/sign-up code/);
    expect(mail.html).toContain(codeIn(mail));
  });

  it("normalises the address: mixed case reaches the same mailbox", async () => {
    const email = uniqueEmail("Mixed");
    await post("/signup/start", { email: email.toUpperCase() });
    const mail = await mailTo(email.toLowerCase());
    expect(mail.to).toBe(email.toLowerCase());
  });

  it("rejects a wrong code with 422 and keeps the right one usable", async () => {
    const { token, code } = await startSignup(uniqueEmail());
    const wrong = code === "000000" ? "111111" : "000000";
    const res = await complete(token, wrong);
    expect(res.status).toBe(422);
    expect(res.body.errors.code[0]).toMatch(/Invalid code/);
    expect((await complete(token, code)).status).toBe(201);
  });

  it("invalidates the code after 5 wrong tries", async () => {
    const { token, code } = await startSignup(uniqueEmail());
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) expect((await complete(token, wrong)).status).toBe(422);
    const res = await complete(token, code);
    expect(res.status).toBe(422);
    expect(res.body.errors.code[0]).toMatch(/Too many/);
  });

  it("counts concurrent wrong codes atomically: 30 at once give 4, 3, 2, 1 attempts left once each, the rest none", async () => {
    const { token, code } = await startSignup(uniqueEmail("race"));
    const wrong = code === "000000" ? "111111" : "000000";
    const answers = await Promise.all(Array.from({ length: 30 }, () => complete(token, wrong)));
    expect(answers.every((r) => r.status === 422)).toBe(true);
    const left = answers.map((r) => /\((\d) attempts left\)/.exec(r.body.errors.code[0])?.[1]).filter(Boolean);
    expect(left.sort()).toEqual(["1", "2", "3", "4"]);
    const tokenHash = await sha256Hex(token);
    const [row] = await withDb((db) => db.select().from(authCodes).where(eq(authCodes.tokenHash, tokenHash)));
    expect(row.attempts).toBe(5);
    expect((await complete(token, code)).status).toBe(422);
  });

  it("rejects an expired code", async () => {
    const { token, code } = await startSignup(uniqueEmail());
    const tokenHash = await sha256Hex(token);
    await withDb((db) =>
      db
        .update(authCodes)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(authCodes.tokenHash, tokenHash)),
    );
    const res = await complete(token, code);
    expect(res.status).toBe(422);
    expect(res.body.errors.code[0]).toMatch(/expired/);
  });

  it("uses a code once", async () => {
    const { token, code } = await startSignup(uniqueEmail());
    expect((await complete(token, code)).status).toBe(201);
    const again = await complete(token, code);
    expect(again.status).toBe(422);
    expect(again.body.errors.signup_token).toBeDefined();
  });

  it("answers 409 for an email that is already registered", async () => {
    const email = uniqueEmail("twice");
    const first = await startSignup(email);
    expect((await complete(first.token, first.code)).status).toBe(201);
    const second = await post("/signup/start", { email });
    expect(second.status).toBe(200);
    const code = codeIn(await mailTo(email, 2));
    const res = await complete(second.body.data.signup_token, code);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("CONFLICT");
  });

  it("validates the bodies with the API's errors shape", async () => {
    const bad = await post("/signup/start", { email: "not-an-address" });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.email).toHaveLength(1);
    const res = await post("/signup/complete", { signup_token: "x", code: "123", name: "", workspace_name: "" });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(["code", "name", "workspace_name"]);
    expect(res.body.errors.code).toEqual(["Must be exactly 6 characters"]);
    const missing = await post("/signup/complete", {});
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors).sort()).toEqual(["code", "name", "signup_token", "workspace_name"]);
  });

  it("gives two workspaces with the same name distinct slugs", async () => {
    const a = await startSignup(uniqueEmail());
    const b = await startSignup(uniqueEmail());
    const name = `Same Name ${Date.now()}`;
    const slugA = (await complete(a.token, a.code, { workspace_name: name })).body.data.workspace_slug;
    const slugB = (await complete(b.token, b.code, { workspace_name: name })).body.data.workspace_slug;
    expect(slugA).not.toBe(slugB);
  });

  it("stores codes and tokens only as hashes", async () => {
    const { token, code } = await startSignup(uniqueEmail());
    const rows = await withDb((db) => db.select().from(authCodes));
    for (const row of rows) {
      expect(row.tokenHash).not.toBe(token);
      expect(row.codeHash).not.toBe(code);
    }
    expect(env.DEV_MAILBOX).toBe("true");
  });
});
