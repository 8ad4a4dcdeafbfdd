// The `pm` CLI against the real `npm start`: built as `npm run build:cli` builds it, run as the `bin` of package.json
// in child processes with their own config directory, as a person (device-flow login approved on the /device page,
// renewed with its refresh token, revoked by `pm logout`) and as a script (PM_API_KEY, and keys it makes).
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/postgres.mjs";
import { endCliSession, pmRunner, startCliSession } from "./lib/pm.mjs";
import { approveOnDevicePage, hidden, newEngineeringTeam, root, STARTUP_MS, sixDigits } from "./lib/stack.mjs";

const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));

let stack;
let owner;
let teamId;
let configHome;

const { startPm, pm, pmJson, waitFor } = pmRunner(() => configHome);

const configPath = () => path.join(configHome, "pm", "config.json");
const storedLogin = () => JSON.parse(readFileSync(configPath(), "utf8"));
const storeLogin = (login) => writeFileSync(configPath(), JSON.stringify(login), { mode: 0o600 });

/** `pm login` (with `args`) approved, or denied, on the /device page by the owner; the finished run. */
async function deviceLogin(args, decision = "approve") {
  const login = startPm(["login", "--base-url", stack.base, ...args]);
  const [, userCode] = await waitFor(login, /enter the code: (\S+)/);
  if (decision === "approve") {
    const { confirm } = await approveOnDevicePage(stack, { userCode, email: owner.email, mailNumber: ++owner.mails });
    expect(confirm?.text).toContain("Device approved");
  } else {
    const step = await stack.call("POST", "/device", { form: { user_code: userCode, email: owner.email } });
    expect(step.status, step.text).toBe(200);
    const denied = await stack.call("POST", "/device/confirm", {
      form: {
        user_code: userCode,
        login_token: hidden(step.text, "login_token"),
        code: sixDigits(await stack.mail(owner.email, ++owner.mails)),
        decision: "deny",
      },
    });
    expect(denied.status, denied.text).toBe(200);
  }
  return login.done;
}

/** What POST /auth/token answers to a refresh token. */
const refresh = (refreshToken) => stack.call("POST", "/auth/token", { body: { grant_type: "refresh_token", refresh_token: refreshToken } });

beforeAll(async () => {
  ({ stack, owner, configHome } = await startCliSession("cli"));
  teamId = (await newEngineeringTeam(stack, owner)).id;
}, STARTUP_MS + 30_000);

afterAll(() => endCliSession({ stack, configHome }), 40_000);

describe("pm, as a person who logged in", () => {
  it("logs in with the device flow approved on the /device page and stores the tokens for the owner only", async () => {
    const { code, stdout, stderr } = await deviceLogin([]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(`${stack.base}/device?user_code=`);
    expect(stdout).toContain(`Logged in as Smoke cli <${owner.email}>`);

    const file = configPath();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(storedLogin()).toMatchObject({ baseUrl: stack.base, token: expect.any(String), refreshToken: expect.any(String) });
    // The stored login names its API: no --base-url from here on.
    expect((await pmJson(["whoami"])).user.email).toBe(owner.email);
  }, 40_000);

  it("creates, lists, shows and updates tasks; comments", async () => {
    const first = await pmJson(["tasks", "create", "--team", "eng", "--title", "Write the engine", "--priority", "high"]);
    expect(first.task).toMatchObject({ reference: "ENG-1", priority: "HIGH", team: { prefix: "ENG" } });
    const created = await pm([
      "tasks",
      "create",
      "--team",
      first.task.teamId,
      "--title",
      "Sub step",
      "--parent",
      "ENG-1",
      "--due",
      "2026-12-24",
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^reference: +ENG-2$/m);
    expect(created.stdout).toMatch(/^due: +2026-12-24$/m);

    // A table for people: a header, one aligned line per task, newest first as sorted.
    const table = await pm(["tasks", "list", "--team", "ENG", "--sort", "createdAt:desc"]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^REF +STATUS +PRIORITY +ASSIGNEE +TITLE$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^ENG-2 +TODO +NONE +- +Sub step$/),
      expect.stringMatching(/^ENG-1 +TODO +HIGH +- +Write the engine$/),
    ]);
    expect(new Set(lines.map((line) => line.search(/TITLE|Sub step|Write the engine/))).size).toBe(1);

    const high = await pmJson(["tasks", "list", "--filter", "in:priority=HIGH,URGENT", "--fields", "reference,priority"]);
    expect(high.tasks).toEqual([{ reference: "ENG-1", priority: "HIGH" }]);

    const updated = await pmJson(["tasks", "update", "eng-1", "--status", "done", "--assignee", "me"]);
    expect(updated.task).toMatchObject({ reference: "ENG-1", status: "DONE", assignee: { email: owner.email } });
    expect((await pmJson(["tasks", "get", "ENG-1"])).task.status).toBe("DONE");
    const done = await pmJson(["tasks", "list", "--status", "done", "--assignee", "me", "--fields", "reference"]);
    expect(done.tasks).toEqual([{ reference: "ENG-1" }]);

    const comment = await pmJson(["comment", "ENG-1", "Looks **good**"]);
    expect(comment.comment).toMatchObject({ content: "Looks **good**", author: { email: owner.email } });
    const comments = await stack.call("GET", "/tasks/ENG-1/comments", { key: owner.key });
    expect(comments.body.comments.map((c) => c.id)).toEqual([comment.comment.id]);

    // Search: JSON for scripts, a table for people; an exact reference comes first.
    const found = await pmJson(["search", "engine", "--types", "task"]);
    expect(found.results).toEqual([expect.objectContaining({ type: "task", reference: "ENG-1", title: "Write the engine" })]);
    const byRef = await pm(["search", "eng-2"]);
    expect(byRef.code, byRef.stderr).toBe(0);
    expect(byRef.stdout.split("\n")[0]).toMatch(/^TYPE +REF +TITLE +SNIPPET$/);
    expect(byRef.stdout.split("\n")[1]).toMatch(/^task +ENG-2 +Sub step/);
  });

  it("takes labels by name in any case (an unknown one is a usage error naming the labels); lists them", async () => {
    for (const [name, color] of [
      ["bug", "#D73A4A"],
      ["P1", "#B60205"],
    ]) {
      const label = await stack.call("POST", "/labels", { key: owner.key, body: { name, color } });
      expect(label.status, label.text).toBe(201);
    }
    const table = await pm(["labels", "list"]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^NAME +COLOR\nbug +#D73A4A\nP1 +#B60205\n$/);
    const listed = await pmJson(["labels", "list"]);
    expect(listed.labels.map((label) => label.name).sort()).toEqual(["P1", "bug"]);

    const created = await pmJson(["tasks", "create", "--team", "ENG", "--title", "Labelled", "--label", "BUG", "--label", "p1"]);
    expect(created.task.labels.map((label) => label.name).sort()).toEqual(["P1", "bug"]);
    const updated = await pmJson(["tasks", "update", created.task.reference, "--label", "Bug"]);
    expect(updated.task.labels.map((label) => label.name)).toEqual(["bug"]);

    // Names go to the API as given (docs/api.md, "Ids and names"): an unknown one is its 404, and nothing changes.
    const unknown = await pm(["tasks", "update", created.task.reference, "--label", "bug", "--label", "urgent"]);
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toMatch(/^error: NOT_FOUND: Label not found$/m);
    expect((await pmJson(["tasks", "get", created.task.reference])).task.labels.map((label) => label.name)).toEqual(["bug"]);
  });

  it("views a task: its fields, description and comments (one read from standard input); --json adds the comments", async () => {
    const project = await stack.call("POST", "/projects", { key: owner.key, body: { teamId, name: "Engine" } });
    expect(project.status, project.text).toBe(201);
    const task = await pmJson([
      "tasks",
      "create",
      "--team",
      "ENG",
      "--title",
      "Viewed",
      "--description",
      "## Plan\n\n- one\n- two",
      "--priority",
      "urgent",
      "--assignee",
      "me",
      "--label",
      "bug",
      "--project",
      project.body.project.reference,
      "--due",
      "2026-12-31",
    ]);
    const ref = task.task.reference;
    const typed = await pm(["comment", ref, "Typed **here**"]);
    expect(typed.code, typed.stderr).toBe(0);
    const piped = await pm(["comment", ref.toLowerCase(), "-"], {}, "From a pipe\n\nTwo paragraphs\n");
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toBe(`commented on ${ref}\n`);
    const empty = await pm(["comment", ref, "-"], {}, "\n");
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^error: the comment is empty$/m);

    const viewed = await pm(["tasks", "view", ref.toLowerCase()]);
    expect(viewed.code, viewed.stderr).toBe(0);
    const time = "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC";
    expect(viewed.stdout).toMatch(
      new RegExp(
        [
          `^title: +Viewed`,
          `reference: +${ref}`,
          "status: +TODO",
          "priority: +URGENT",
          "assignee: +Smoke cli",
          "labels: +bug",
          "parent: +-",
          `project: +${project.body.project.reference} Engine`,
          "milestone: +-",
          "due: +2026-12-31",
          "",
          "## Plan",
          "",
          "- one",
          "- two",
          "",
          "2 comments:",
          "",
          `Smoke cli · ${time}`,
          "Typed \\*\\*here\\*\\*",
          "",
          `Smoke cli · ${time}`,
          "From a pipe",
          "",
          "Two paragraphs\n$",
        ].join("\n"),
      ),
    );
    const json = await pmJson(["tasks", "view", ref]);
    expect(json.task).toMatchObject({ reference: ref, description: "## Plan\n\n- one\n- two", labels: [{ name: "bug" }] });
    expect(json.task.comments).toEqual([
      expect.objectContaining({ content: "Typed **here**", author: expect.objectContaining({ email: owner.email }) }),
      expect.objectContaining({ content: "From a pipe\n\nTwo paragraphs" }),
    ]);

    const bare = await pm(["tasks", "view", "ENG-1"]);
    expect(bare.stdout).toMatch(
      /^labels: +-\nparent: +-\nproject: +-\nmilestone: +-\ndue: +-\n\nNo description\.\n\n1 sub-task:\nREF +STATUS +TITLE\nENG-2 +TODO +Sub step\n\n1 comment:\n\nSmoke cli · /m,
    );
    const missing = await pm(["tasks", "view", "ENG-999"]);
    expect(missing).toMatchObject({ code: 1, stdout: "" });
    expect(missing.stderr).toMatch(/^error: NOT_FOUND: /);
  });

  it("links tasks (--blocks, --blocked-by, --duplicate-of, --related), shows the relations in view, unlinks them", async () => {
    const [a, b, c] = await Promise.all(
      ["Blocked one", "Blocking one", "Same as blocked"].map((title) => pmJson(["tasks", "create", "--team", "ENG", "--title", title])),
    );
    const [refA, refB, refC] = [a.task.reference, b.task.reference, c.task.reference];
    const linked = await pm(["tasks", "link", refA.toLowerCase(), "--blocked-by", refB]);
    expect(linked.code, linked.stderr).toBe(0);
    expect(linked.stdout).toMatch(new RegExp(`^relation: +${refA} blocked by ${refB}$`, "m"));
    expect((await pmJson(["tasks", "link", refC, "--duplicate-of", refA])).relation).toMatchObject({ type: "duplicate_of" });
    const cycle = await pm(["tasks", "link", refA, "--blocks", refB]);
    expect(cycle.code).toBe(1);
    expect(cycle.stderr).toMatch(/cycle/);
    const two = await pm(["tasks", "link", refA, "--blocks", refB, "--related", refC]);
    expect(two.code).toBe(2);

    const viewed = await pm(["tasks", "view", refA]);
    expect(viewed.code, viewed.stderr).toBe(0);
    expect(viewed.stdout).toContain(
      `\nRelations:\n  blocked by  ${refB}  TODO  Blocking one\n  duplicated by  ${refC}  CANCELED  Same as blocked\n`,
    );
    const json = await pmJson(["tasks", "view", refA]);
    expect(json.task).toMatchObject({ blockedByCount: 1, relations: [{ type: "blocked_by" }, { type: "duplicated_by" }] });

    const unlinked = await pm(["tasks", "unlink", refB, "--blocks", refA.toLowerCase()]);
    expect(unlinked.code, unlinked.stderr).toBe(0);
    expect((await pmJson(["tasks", "get", refA])).task.blockedByCount).toBe(0);
    expect((await pm(["tasks", "unlink", refB, "--blocks", refA])).code).toBe(2);
  });

  it("links a URL to a task (the same URL again is the link it has) and shows the links in view", async () => {
    const env = { PM_API_KEY: owner.key, PM_BASE_URL: stack.base };
    const { task } = await pmJson(["tasks", "create", "--team", "ENG", "--title", "Has links"], env);
    const ref = task.reference;
    const linked = await pm(["link", ref.toLowerCase(), "https://github.com/acme/api/pull/42", "--title", "The fix"], env);
    expect(linked.code, linked.stderr).toBe(0);
    expect(linked.stdout).toBe(`linked https://github.com/acme/api/pull/42 to ${ref}\n`);
    expect((await pm(["link", ref, "https://github.com/acme/api/pull/42"], env)).stdout).toBe(
      `already linked https://github.com/acme/api/pull/42 to ${ref}\n`,
    );
    expect((await pmJson(["link", ref, "http://example.com/log"], env)).link).toMatchObject({ url: "http://example.com/log", title: null });
    const refused = await pm(["link", ref, "javascript:alert(1)"], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/http or https/);
    const viewed = await pm(["tasks", "view", ref], env);
    expect(viewed.code, viewed.stderr).toBe(0);
    expect(viewed.stdout).toContain("\nLinks:\n  The fix  https://github.com/acme/api/pull/42\n  http://example.com/log\n");
    expect((await pmJson(["tasks", "view", ref], env)).task.links.map((l) => l.url)).toEqual([
      "https://github.com/acme/api/pull/42",
      "http://example.com/log",
    ]);
  });

  it("claims a task by reference or the first free one a filter matches (nothing free: said, exit 0), and releases it", async () => {
    const env = { PM_API_KEY: owner.key, PM_BASE_URL: stack.base };
    const { task } = await pmJson(["tasks", "create", "--team", "ENG", "--title", "Claim me"], env);
    const ref = task.reference;
    const claimed = await pm(["tasks", "claim", ref.toLowerCase(), "--lease", "60"], env);
    expect(claimed.code, claimed.stderr).toBe(0);
    expect(claimed.stdout).toMatch(new RegExp(`^claimed ${ref} Claim me \\(until \\d{4}-\\d{2}-\\d{2}T`));
    const queue = ["--filter", "contains:title=Claim me", "--filter", "teamId=ENG", "--sort", "createdAt:desc"];
    const none = await pm(["tasks", "claim", ...queue], env);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stderr).toContain("nothing to claim");
    expect(await pmJson(["tasks", "claim", ...queue], env)).toEqual({ task: null, claim: null });
    const released = await pm(["tasks", "release", ref], env);
    expect(released.code, released.stderr).toBe(0);
    expect(released.stdout).toBe(`released ${ref}\n`);
    const taken = await pmJson(["tasks", "claim", ...queue, "--lease", "30"], env);
    expect(taken.task.reference).toBe(ref);
    expect(taken.task.claim).toEqual(taken.claim);
    expect((await pm(["tasks", "claim", ref, "--filter", "status=TODO"], env)).code).toBe(2);
  });

  it("renews an expired or refused access token with the refresh token, which rotates; a dead refresh token is exit 3", async () => {
    // Expired: renewed before the call; the old refresh token then no longer works.
    const first = storedLogin();
    storeLogin({ ...first, expiresAt: new Date(Date.now() - 1000).toISOString() });
    expect((await pmJson(["whoami"])).user.email).toBe(owner.email);
    const second = storedLogin();
    expect(second.token).not.toBe(first.token);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(Date.parse(second.expiresAt)).toBeGreaterThan(Date.now());
    expect(statSync(configPath()).mode & 0o777).toBe(0o600);
    const reused = await refresh(first.refreshToken);
    expect(reused.status, reused.text).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");

    // Refused (401) though not expired by the clock: renewed once, the call sent again (a POST, with its body).
    storeLogin({ ...second, token: `${second.token}x` });
    const renewed = await pmJson(["comment", "ENG-1", "After a renewal"]);
    expect(renewed.comment.content).toBe("After a renewal");
    const third = storedLogin();
    expect(third.refreshToken).not.toBe(second.refreshToken);
    expect((await stack.call("GET", "/tasks/ENG-1/comments", { key: owner.key })).body.comments.at(-1).content).toBe("After a renewal");

    // A refresh token the API refuses ends the login: exit 3, told to log in; the stored login stays for `pm login`.
    storeLogin({ ...third, token: `${third.token}x`, refreshToken: `${third.refreshToken}x` });
    const dead = await pm(["whoami"]);
    expect(dead).toMatchObject({ code: 3, stdout: "" });
    expect(dead.stderr).toMatch(/^error: .*run `pm login`/);
    storeLogin(third);
    expect((await pmJson(["whoami"])).user.email).toBe(owner.email);
  });

  it("reports API errors (exit 1) with the code, message and each invalid field, never a stack trace", async () => {
    const missing = await pm(["tasks", "get", "ENG-999"]);
    expect(missing).toMatchObject({ code: 1, stdout: "" });
    expect(missing.stderr).toMatch(/^error: NOT_FOUND: .+$/m);
    const invalid = await pm(["tasks", "update", "ENG-1", "--due", "2026-13-45"]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^error: VALIDATION_FAILED: .+\n {2}dueDate: .+$/m);
    for (const { stderr } of [missing, invalid]) expect(stderr).not.toMatch(/\n\s+at /);
  });

  it("rejects a wrong command line (exit 2) before calling the API", async () => {
    for (const args of [
      ["tasks", "list", "--bogus"],
      ["tasks", "create", "--title", "no team"],
      ["tasks", "update", "ENG-1", "--priority", "SOON"],
      ["tasks"],
      ["keys", "create", "--name", "ci", "--scope", "tasks:write", "--scope", "tasks:delete"],
      ["login", "--scope", "read everything"],
      ["--version", "--json"],
    ]) {
      const result = await pm(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(/^error: .+\nRun `pm.* --help` for usage\.$/m);
    }
    // A status is a workflow state of the task's team, which only the API knows: an unknown one is its 422 (exit 1).
    const unknownState = await pm(["tasks", "update", "ENG-1", "--status", "SOON"]);
    expect(unknownState.code).toBe(1);
    expect(unknownState.stderr).toMatch(/status/);
  });

  it("prints its version; help without colour codes when piped", async () => {
    for (const flag of ["--version", "-V"]) {
      const version = await pm([flag]);
      expect(version, flag).toMatchObject({ code: 0, stdout: `pm ${pkg.version}\n`, stderr: "" });
    }
    // The variables that keep citty's colours off are unset: stdout being a pipe is what must.
    const plain = { NO_COLOR: undefined, TEST: undefined, CI: undefined, TERM: "xterm-256color" };
    for (const args of [["--help"], ["tasks", "view", "--help"], ["keys", "create", "-h"]]) {
      const help = await pm(args, plain);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/USAGE/);
      expect(help.stdout).not.toContain("\u001b");
    }
    expect((await pm(["--help"], plain)).stdout).toMatch(/^ +-V, --version +Print pm's version$/m);
  });

  it("logs out: the login is revoked on the server (refresh and access token) and its tokens removed here, its base URL and workspace kept; exit 3 afterwards", async () => {
    const login = storedLogin();
    const out = await pm(["logout"]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^Logged out of http:\S+: the login is revoked there and its tokens are removed from \S+config\.json$/m);
    expect(storedLogin()).toEqual({ baseUrl: stack.base, workspace: login.workspace });
    expect(login.workspace).toMatch(/^smoke-works/);
    expect((await refresh(login.refreshToken)).status).toBe(400);
    expect((await stack.call("GET", "/me", { bearer: login.token })).status).toBe(401);

    const after = await pm(["whoami"]);
    expect(after.code).toBe(3);
    expect(after.stderr).toContain("pm login");
    expect((await pm(["logout"])).stdout).toBe("Not logged in\n");
    // The command line is checked before the credential.
    expect((await pm(["tasks", "list", "--limit", "many"])).code).toBe(2);
  });

  it("logs out with the server away: forgotten here, and says the revocation failed (exit 1)", async () => {
    const away = `http://127.0.0.1:${await freePort()}`;
    storeLogin({ baseUrl: away, token: "t", refreshToken: "r", expiresAt: new Date(Date.now() + 60_000).toISOString() });
    const out = await pm(["logout"]);
    expect(out).toMatchObject({ code: 1, stdout: "" });
    expect(out.stderr).toMatch(
      new RegExp(`^error: removed the login's tokens from \\S+, but revoking it at ${away} failed \\(cannot reach the API`),
    );
    expect(storedLogin()).toEqual({ baseUrl: away });
    rmSync(configPath());
  });

  it("a login denied on the /device page exits 3 and stores nothing", async () => {
    const { code, stdout, stderr } = await deviceLogin([], "deny");
    expect(code, stdout).toBe(3);
    expect(stderr).toMatch(/^error: the login was denied in the browser$/m);
    expect(existsSync(configPath())).toBe(false);
  });

  it("logs in with fewer scopes: it reads and comments, and may not create a task (403, exit 1)", async () => {
    const { code, stdout, stderr } = await deviceLogin(["--scope", "read comments:write"]);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^Scopes: read comments:write$/m);
    expect(storedLogin().scope).toBe("read comments:write");
    const me = await pm(["whoami"]);
    expect(me.stdout).toMatch(/^scopes: +read,comments:write$/m);
    expect((await pmJson(["comment", "ENG-1", "Scoped"])).comment.content).toBe("Scoped");
    const refused = await pm(["tasks", "create", "--team", "ENG", "--title", "Not allowed"]);
    expect(refused).toMatchObject({ code: 1, stdout: "" });
    expect(refused.stderr).toMatch(/^error: FORBIDDEN: .*tasks:write/m);
    // Renewed, the login keeps its scopes.
    storeLogin({ ...storedLogin(), expiresAt: new Date(0).toISOString() });
    expect((await pm(["tasks", "create", "--team", "ENG", "--title", "Still not"])).code).toBe(1);
    expect((await pm(["logout"])).code).toBe(0);
  }, 40_000);
});

describe("pm, as a script with PM_API_KEY", () => {
  it("works without a login; a bad key is exit 3", async () => {
    const env = { PM_API_KEY: owner.key, PM_BASE_URL: stack.base };
    const teams = await pm(["teams", "list"], env);
    expect(teams.code, teams.stderr).toBe(0);
    expect(teams.stdout).toMatch(/^PREFIX +NAME +PARENT\nENG +Engineering +-\n$/);
    // A field selection chooses the table's columns (top-level names).
    const selected = await pm(["tasks", "list", "--fields", "reference,team{prefix},dueDate", "--filter", "in:reference=ENG-1,ENG-2"], env);
    expect(selected.stdout).toMatch(/^REFERENCE +TEAM +DUE_DATE\nENG-1 +ENG +-\nENG-2 +ENG +2026-12-24\n$/);
    const bad = await pm(["whoami"], { ...env, PM_API_KEY: "not-a-key" });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/^error: UNAUTHORIZED: /);
  });

  it("makes a key limited to scopes and a team, printed once; lists and deletes keys", async () => {
    const env = { PM_API_KEY: owner.key, PM_BASE_URL: stack.base };
    const other = await stack.call("POST", "/teams", { key: owner.key, body: { name: "Operations", prefix: "OPS" } });
    expect(other.status, other.text).toBe(201);
    const made = await pm(["keys", "create", "--name", "triage", "--scope", "read", "--scope", "comments:write", "--team", "eng"], env);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^pmk_\S+\n$/);
    expect(made.stderr).toMatch(/^Created the API key 'triage' \(apik_\w+\)\.\nThis is the only time it is shown: store it now/);
    const key = made.stdout.trim();

    const listed = await pm(["keys", "list"], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^ID +NAME +PREFIX +SCOPES +TEAMS +LAST USED +EXPIRES$/m);
    expect(listed.stdout).toMatch(new RegExp(`^(apik_\\w+) +triage +${key.slice(0, 10)} +read,comments:write +ENG +- +-$`, "m"));
    expect(listed.stdout).toMatch(/^apik_\w+ +Sign-up key +pmk_\S+ +all +all /m);
    const id = (await pmJson(["keys", "list"], env)).api_keys.find((k) => k.name === "triage").id;

    // The key does its job and no more: comments in ENG; no task, and OPS is out of its reach.
    const as = { PM_API_KEY: key, PM_BASE_URL: stack.base };
    expect((await pm(["whoami"], as)).stdout).toMatch(/^scopes: +read,comments:write\nteams: +ENG$/m);
    expect((await pmJson(["comment", "ENG-2", "Triaged"], as)).comment.content).toBe("Triaged");
    const task = await pm(["tasks", "create", "--team", "ENG", "--title", "No"], as);
    expect(task.code).toBe(1);
    expect(task.stderr).toMatch(/^error: FORBIDDEN: .*tasks:write/m);
    expect((await pmJson(["teams", "list"], as)).teams.map((team) => team.prefix)).toEqual(["ENG"]);

    const deleted = await pm(["keys", "delete", id], env);
    expect(deleted).toMatchObject({ code: 0, stdout: `Deleted the API key ${id}\n` });
    expect((await pm(["whoami"], as)).code).toBe(3);
    expect((await pm(["keys", "delete", id], env)).code).toBe(1);
  });
});

describe("pm, reading the change feed", () => {
  it("shows a task's history, lists the stream as JSON lines after an event, and follows what is written next", async () => {
    const env = { PM_API_KEY: owner.key, PM_BASE_URL: stack.base };
    const updated = await pm(["tasks", "update", "ENG-2", "--title", "Sub step, refined"], env);
    expect(updated.code, updated.stderr).toBe(0);

    // History for people: newest first, who and how, each change as `field: from → to`.
    const history = await pm(["tasks", "history", "eng-2"], env);
    expect(history.code, history.stderr).toBe(0);
    const lines = history.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^WHEN \(UTC\) +WHO +VIA +TYPE +CHANGES$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +Smoke cli +api_key +task\.updated +title: Sub step → Sub step, refined$/),
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +Smoke cli +jwt +task\.created +-$/),
    ]);
    const json = await pmJson(["tasks", "history", "ENG-2"], env);
    expect(json.events[0].changes).toEqual({ title: { from: "Sub step", to: "Sub step, refined" } });

    // The stream for scripts: one JSON event per line, oldest first; --after gives exactly what came later.
    const listed = await pm(["events", "--json", "--resource", "ENG-2"], env);
    expect(listed.code, listed.stderr).toBe(0);
    const [created, update, ...more] = listed.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(more).toEqual([]);
    expect(created).toMatchObject({ type: "task.created", reference: "ENG-2", actor: { email: owner.email, via: "jwt" } });
    expect(update).toMatchObject({ id: json.events[0].id, type: "task.updated", actor: { via: "api_key" } });
    const after = await pm(["events", "--json", "--after", created.id, "--types", "task.*", "--resource", "eng-2"], env);
    expect(
      after.stdout
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).id),
    ).toEqual([update.id]);
    const readable = await pm(["events", "--after", created.id, "--types", "task.*", "--resource", "ENG-2"], env);
    expect(readable.stdout).toMatch(/^\S+ \S+ +task\.updated +ENG-2 +Smoke cli \(api_key\) +title: Sub step → Sub step, refined\n$/);
    expect(readable.stderr).toBe(`resume: --after ${update.id}\n`);

    // --follow: started at the newest event, it prints what is committed afterwards, each once, until interrupted.
    const everything = (await pm(["events", "--json"], env)).stdout.trimEnd().split("\n");
    const newest = JSON.parse(everything.at(-1)).id;
    const follow = startPm(["events", "--follow", "--after", newest, "--json"], env);
    const comment = await stack.call("POST", "/comments", { key: owner.key, body: { taskId: "ENG-2", content: "Followed" } });
    expect(comment.status, comment.text).toBe(201);
    await waitFor(follow, /"type":"comment\.created"/);
    expect((await pm(["tasks", "update", "ENG-2", "--priority", "low"], env)).code).toBe(0);
    await waitFor(follow, /"type":"task\.updated"/);
    follow.child.kill("SIGINT");
    const followed = await follow.done;
    expect(followed.code, followed.stderr).toBe(0);
    const printed = followed.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(printed.map((e) => [e.type, e.resourceId])).toEqual([
      ["comment.created", comment.body.comment.id],
      ["task.updated", created.resourceId],
    ]);
    expect(printed[1].changes).toEqual({ priority: { from: "NONE", to: "LOW" } });

    // Resuming past the 30 days kept is 410: said plainly, exit 1.
    const gone = await pm(["events", "--after", "evt_01jz8x4q0be0sv3c5kq9v1y2ab"], env);
    expect(gone).toMatchObject({ code: 1, stdout: "" });
    expect(gone.stderr).toMatch(/^error: GONE: events are kept 30 days .* without --after/);
  }, 40_000);

  it("exports a team to a file and imports it into another team, in parts when asked; a workspace into a new one", async () => {
    const env = { PM_API_KEY: owner.key, PM_BASE_URL: stack.base };
    const dir = mkdtempSync(path.join(tmpdir(), "pm-transfer-"));
    const file = path.join(dir, "eng.json");
    // A relation travels too, in a part of its own.
    const made = [];
    for (const title of ["Blocker", "Blocked"])
      made.push((await stack.call("POST", "/tasks", { key: owner.key, body: { teamId, title } })).body.task);
    const linked = await stack.call("POST", `/tasks/${made[0].id}/relations`, {
      key: owner.key,
      body: { type: "blocks", taskId: made[1].id },
    });
    expect(linked.status, linked.text).toBe(201);
    // And a link, through pm.
    expect((await pm(["link", made[0].reference, "https://example.com/deploy-log", "--title", "Deploy log"], env)).code).toBe(0);
    const exported = await pm(["export", "team", "eng", "--output", file], env);
    expect(exported.code, exported.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(file, "utf8"));
    expect(doc).toMatchObject({ type: "team", version: 1 });
    expect(doc.data.tasks.length).toBeGreaterThan(1);
    // The same document on standard output, as the API streams it.
    expect(JSON.parse((await pm(["export", "team", teamId], env)).stdout).data.tasks).toHaveLength(doc.data.tasks.length);

    const copy = await stack.call("POST", "/teams", { key: owner.key, body: { name: "Copy", prefix: "CPY" } });
    expect(copy.status, copy.text).toBe(201);
    // Parts of about 1 KiB: one per record, sent one after the other, committed in one transaction.
    const imported = await pm(["import", file, "--team", "cpy", "--part-size", "0.001"], env);
    expect(imported.code, imported.stderr).toBe(0);
    const { tasks, comments } = doc.data;
    expect(imported.stdout).toBe(
      `imported ${tasks.length} task${tasks.length === 1 ? "" : "s"}, ${comments.length} comment${comments.length === 1 ? "" : "s"} into CPY (Copy)\n`,
    );
    expect(imported.stderr).toMatch(/^sent part 1 of (\d+)\n(.*\n)*sent part \1 of \1\n$/);
    const back = JSON.parse((await pm(["export", "team", "CPY"], env)).stdout);
    expect(back.data.tasks.map((t) => t.title)).toEqual(doc.data.tasks.map((t) => t.title));
    const titled = (d) => {
      const title = new Map(d.data.tasks.map((t) => [t.id, t.title]));
      return d.data.relations.map((r) => `${r.type} ${[title.get(r.sourceTaskId), title.get(r.targetTaskId)].sort().join(" ")}`).sort();
    };
    expect(doc.data.relations.length).toBeGreaterThan(0);
    expect(titled(back)).toEqual(titled(doc));
    const linksOf = (d) => {
      const title = new Map(d.data.tasks.map((t) => [t.id, t.title]));
      return d.data.links.map((l) => `${title.get(l.taskId)} ${l.url} ${l.title}`).sort();
    };
    expect(linksOf(doc)).toContain("Blocker https://example.com/deploy-log Deploy log");
    expect(linksOf(back)).toEqual(linksOf(doc));

    // A workspace export, in one request (it fits), into a new workspace.
    const whole = path.join(dir, "workspace.json");
    expect((await pm(["export", "workspace", "--output", whole], env)).code).toBe(0);
    const newWorkspace = await pmJson(["import", whole, "--new-workspace"], env);
    expect(newWorkspace.workspace.id).toMatch(/^ws_/);
    // Usage errors before any request; a refused part discards the import (exit 1).
    expect((await pm(["import", file], env)).code).toBe(2);
    expect((await pm(["export", "folder", "x"], env)).code).toBe(2);
    writeFileSync(file, JSON.stringify({ ...doc, data: { ...doc.data, tasks: [{ ...doc.data.tasks[0], status: "SOMEDAY" }] } }));
    const refused = await pm(["import", file, "--team", "cpy", "--part-size", "0.001"], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/error: VALIDATION_FAILED|data\.data\.tasks\.0\.status/);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
