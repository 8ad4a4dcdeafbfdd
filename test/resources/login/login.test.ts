import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { authCodes, workspaceMembers } from "../../../drizzle/schema";
import { sha256Hex } from "../../../src/core/crypto";
import { get, post, uniqueEmail } from "../../helpers/api";
import { addMember, newTenant, type Tenant, withDb } from "../../helpers/fixtures";
import { codeIn, mailTo } from "../../helpers/signup";

const complete = (login_token: string, code: string, extra: Record<string, unknown> = {}) =>
  post("/login/complete", { login_token, code, ...extra });
const otherThan = (code: string) => (code === "000000" ? "111111" : "000000");

/** Starts a login for an address with an account; returns the token and the code read from the dev mailbox. */
async function startLogin(email: string, mails = 1) {
  const res = await post("/login/start", { email });
  expect(res.status).toBe(200);
  const mail = await mailTo(email, mails);
  expect(mail.subject).toMatch(/sign-in code/);
  return { token: res.body.data.login_token as string, code: codeIn(mail) };
}

describe("login", () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await newTenant("Login Co");
  });

  it("logs in with the emailed code: a new API key of the user's workspace", async () => {
    const { token, code } = await startLogin(tenant.owner.email);
    const res = await complete(token, code);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { api_token: expect.stringMatching(/^pmk_/), workspace_slug: tenant.slug } });
    expect(res.body.data.api_token).not.toBe(tenant.owner.key);
    const me = await get("/me", res.body.data.api_token);
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(tenant.owner.userId);
    expect(me.body.workspace.id).toBe(tenant.workspaceId);
    // The old key keeps working: a login adds a key, it does not replace one.
    expect((await get("/me", tenant.owner.key)).status).toBe(200);
  });

  it("accepts the address in any case", async () => {
    const m = await addMember(tenant, "MEMBER");
    const res = await post("/login/start", { email: m.email.toUpperCase() });
    expect(res.status).toBe(200);
    expect((await complete(res.body.data.login_token, codeIn(await mailTo(m.email)))).status).toBe(200);
  });

  it("answers an unknown address exactly like a known one, sends it nothing, and its token never completes", async () => {
    const known = await addMember(tenant, "MEMBER");
    const unknown = uniqueEmail("nobody");
    const a = await post("/login/start", { email: unknown });
    const b = await post("/login/start", { email: known.email });
    expect(a.status).toBe(b.status);
    expect(Object.keys(a.body)).toEqual(Object.keys(b.body));
    expect(Object.keys(a.body.data)).toEqual(["login_token"]);
    expect(a.body.data.login_token).toHaveLength(b.body.data.login_token.length);
    expect(a.queries).toBe(b.queries);
    // Mail queued after the unknown address's answer has arrived, so the unknown one would have too.
    await mailTo(known.email);
    expect((await get(`/_dev/mailbox?to=${encodeURIComponent(unknown)}`)).body.messages).toEqual([]);
    for (const code of ["000000", "123456", "999999"]) {
      const res = await complete(a.body.data.login_token, code);
      expect(res.status).toBe(422);
      expect(res.body.errors.code[0]).toMatch(/Invalid code/);
    }
  });

  it("does not send codes to agents (their addresses are generated)", async () => {
    const agent = await addMember(tenant, "MEMBER", "AGENT");
    const res = await post("/login/start", { email: agent.email });
    expect(res.status).toBe(200);
    const probe = await addMember(tenant, "MEMBER");
    await post("/login/start", { email: probe.email });
    await mailTo(probe.email);
    expect((await get(`/_dev/mailbox?to=${encodeURIComponent(agent.email)}`)).body.messages).toEqual([]);
  });

  it("rejects a wrong code with 422 and keeps the right one usable; a used code is refused", async () => {
    const m = await addMember(tenant, "MEMBER");
    const { token, code } = await startLogin(m.email);
    const wrong = await complete(token, otherThan(code));
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.code[0]).toMatch(/Invalid code \(4 attempts left\)/);
    expect((await complete(token, code)).status).toBe(200);
    const again = await complete(token, code);
    expect(again.status).toBe(422);
    expect(again.body.errors.login_token).toEqual(["Unknown or already used token"]);
  });

  it("invalidates the code after 5 wrong tries", async () => {
    const m = await addMember(tenant, "MEMBER");
    const { token, code } = await startLogin(m.email);
    for (let i = 0; i < 5; i++) expect((await complete(token, otherThan(code))).status).toBe(422);
    const res = await complete(token, code);
    expect(res.status).toBe(422);
    expect(res.body.errors.code[0]).toMatch(/Too many/);
  });

  it("counts concurrent wrong codes atomically: of 30 at once, four are told 4, 3, 2, 1 attempts left", async () => {
    const m = await addMember(tenant, "MEMBER");
    const { token, code } = await startLogin(m.email);
    const answers = await Promise.all(Array.from({ length: 30 }, () => complete(token, otherThan(code))));
    expect(answers.every((r) => r.status === 422)).toBe(true);
    const left = answers.map((r) => /\((\d) attempts left\)/.exec(r.body.errors.code[0])?.[1]).filter(Boolean);
    expect(left.sort()).toEqual(["1", "2", "3", "4"]);
    expect((await complete(token, code)).body.errors.code[0]).toMatch(/Too many/);
  });

  it("rejects an expired code", async () => {
    const m = await addMember(tenant, "MEMBER");
    const { token, code } = await startLogin(m.email);
    const hash = await sha256Hex(token);
    await withDb((db) =>
      db
        .update(authCodes)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(authCodes.tokenHash, hash)),
    );
    const res = await complete(token, code);
    expect(res.status).toBe(422);
    expect(res.body.errors.code[0]).toMatch(/expired/);
  });

  it("does not accept a sign-up token or code as a login", async () => {
    const email = uniqueEmail("signup-only");
    const started = await post("/signup/start", { email });
    const code = codeIn(await mailTo(email));
    const res = await complete(started.body.data.signup_token, code);
    expect(res.status).toBe(422);
    expect(res.body.errors.login_token).toBeDefined();
  });

  it("stores the login code and token only as hashes", async () => {
    const m = await addMember(tenant, "MEMBER");
    const { token, code } = await startLogin(m.email);
    const [row] = await withDb((db) => db.select().from(authCodes).where(eq(authCodes.email, m.email)));
    expect(row.purpose).toBe("LOGIN");
    expect(row.tokenHash).toBe(await sha256Hex(token));
    expect(row.codeHash).toBe(await sha256Hex(code));
  });

  describe("workspace choice", () => {
    it("defaults to the first workspace joined; workspace_slug picks another; a foreign slug is 422 and keeps the code", async () => {
      const first = await newTenant("First Home");
      const second = await newTenant("Second Home");
      const stranger = await newTenant("Not Mine");
      const user = first.owner;
      await withDb((db) => db.insert(workspaceMembers).values({ workspaceId: second.workspaceId, userId: user.userId, role: "MEMBER" }));

      let login = await startLogin(user.email, 1);
      const byDefault = await complete(login.token, login.code);
      expect(byDefault.status).toBe(200);
      expect(byDefault.body.data.workspace_slug).toBe(first.slug);

      login = await startLogin(user.email, 2);
      for (const slug of [stranger.slug, "no-such-workspace-anywhere"]) {
        const foreign = await complete(login.token, login.code, { workspace_slug: slug });
        expect(foreign.status).toBe(422);
        expect(foreign.body.errors).toEqual({ workspace_slug: ["You are not a member of a workspace with this slug"] });
      }
      const chosen = await complete(login.token, login.code, { workspace_slug: second.slug });
      expect(chosen.status).toBe(200);
      expect(chosen.body.data.workspace_slug).toBe(second.slug);
      const me = await get("/me", chosen.body.data.api_token);
      expect(me.body.workspace.id).toBe(second.workspaceId);
      expect(me.body.role).toBe("MEMBER");
    });
  });

  it("validates the bodies with the API's errors shape", async () => {
    expect((await post("/login/start", { email: "nope" })).body.errors.email).toHaveLength(1);
    expect((await post("/login/start", { email: "a@example.com", extra: 1 })).body.errors).toEqual({ extra: ["Unknown field"] });
    const res = await post("/login/complete", { login_token: "", code: "12" });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(["code", "login_token"]);
    expect(res.body.errors.code).toEqual(["Must be exactly 6 characters"]);
  });
});
