// `pm` for daily work against the real `npm start`: the verbs `gh issue` users reach for, lists with their
// filters, creating what a person creates, `pm api`, `--json fields` and `--jq`, output that names things; a run with no
// terminal never asks (exit 1), one on a terminal (util-linux `script`) does. Workspaces, the docs' CLI session,
// completion and help are cli-workspaces.test.mjs's.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bin, endCliSession, pmRunner, startCliSession } from "./lib/pm.mjs";
import { newEngineeringTeam, STARTUP_MS, signUp } from "./lib/stack.mjs";

let stack;
let owner;
let configHome;
/** The environment of a script: the owner's key. */
let env;

const { pm, pmOnTerminal } = pmRunner(() => configHome);

/** `pm` as the owner's script; the finished run, its exit code checked to be 0. */
async function ok(args, input) {
  const result = await pm(args, env, input);
  expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result;
}
const json = async (args, input) => JSON.parse((await ok([...args, "--json"], input)).stdout);

beforeAll(async () => {
  ({ stack, owner, env, configHome } = await startCliSession("daily"));
  await newEngineeringTeam(stack, owner);
}, STARTUP_MS + 30_000);

afterAll(() => endCliSession({ stack, configHome }), 40_000);

describe("pm creates what a person creates", () => {
  it("labels, teams, projects and milestones, each said by name", async () => {
    expect((await ok(["labels", "create", "bug", "--color", "#D73A4A"])).stdout).toBe("created the label bug (#D73A4A)\n");
    expect((await ok(["labels", "create", "P1", "--color", "#B60205"])).stdout).toBe("created the label P1 (#B60205)\n");
    expect((await ok(["teams", "create", "Operations", "--prefix", "ops", "--parent", "eng"])).stdout).toBe(
      "created the team OPS Operations\n",
    );
    expect((await ok(["projects", "create", "Launch", "--team", "ENG", "--target", "2026-12-31"])).stdout).toBe(
      "created the project ENG-P1 Launch\n",
    );
    expect((await ok(["milestones", "create", "Beta", "--project", "eng-p1", "--target", "2026-12-01"])).stdout).toBe(
      "created the milestone Beta in ENG-P1\n",
    );
    // A refusal is the API's, exit 1: a label's name is unique in any case.
    const twice = await pm(["labels", "create", "BUG", "--color", "#000000"], env);
    expect(twice).toMatchObject({ code: 1, stdout: "" });
    expect(twice.stderr).toMatch(/^error: CONFLICT: /);

    const teams = await ok(["teams", "list"]);
    expect(teams.stdout).toBe(
      `${["PREFIX  NAME         PARENT", "ENG     Engineering  -", "OPS     Operations   Engineering"].join("\n")}\n`,
    );
    expect((await ok(["teams", "members", "OPS"])).stdout).toMatch(/^NAME +EMAIL +ROLE\nSmoke daily +\S+@example\.com +OWNER\n$/);
    expect((await ok(["projects", "list", "--team", "ENG", "--status", "planning"])).stdout).toMatch(
      /^REF +STATUS +LEAD +NAME\nENG-P1 +PLANNING +- +Launch\n$/,
    );
    expect((await ok(["milestones", "list", "--project", "ENG-P1"])).stdout).toMatch(/^NAME +STATUS +TARGET\nBeta +PLANNED +2026-12-01\n$/);
    expect((await ok(["labels", "list", "--sort", "name:desc"])).stdout).toMatch(/^NAME +COLOR\nbug +#D73A4A\nP1 +#B60205\n$/);
    expect((await ok(["members"])).stdout).toMatch(/^NAME +EMAIL +ROLE +TYPE\nSmoke daily +\S+ +OWNER +HUMAN\n$/);
  });
});

describe("pm tasks, as gh issue users reach for them", () => {
  it("creates with a title from standard input and a description from a file; edits every field by name", async () => {
    const file = path.join(configHome, "body.md");
    writeFileSync(file, "## Plan\n\nShip it\n");
    const made = await ok(
      ["tasks", "create", "--team", "ENG", "--title", "-", "--body-file", file, "--label", "bug"],
      "Write the engine\n",
    );
    expect(made.stdout).toMatch(/^reference: +ENG-1\ntitle: +Write the engine\n/);
    expect(made.stdout).toMatch(/\n\n## Plan\n\nShip it\n$/);
    // `--description -` is standard input, not a literal dash.
    const sub = await json(["tasks", "create", "--team", "ENG", "--title", "Sub step", "--description", "-"], "From a pipe");
    expect(sub.task.description).toBe("From a pipe");

    const edited = await ok([
      "tasks",
      "edit",
      "ENG-2",
      "--parent",
      "eng-1",
      "--project",
      "ENG-P1",
      "--assignee",
      "@me",
      "--due",
      "2026-12-24",
      "--estimate",
      "3",
      "--add-label",
      "P1",
      "--add-label",
      "BUG",
    ]);
    // Links by name, never by id.
    expect(edited.stdout).toMatch(/^assignee: +Smoke daily$/m);
    expect(edited.stdout).toMatch(/^project: +ENG-P1 Launch$/m);
    expect(edited.stdout).toMatch(/^parent: +ENG-1 Write the engine$/m);
    expect(edited.stdout).toMatch(/^labels: +(bug,P1|P1,bug)$/m);
    expect(edited.stdout).toMatch(/^estimate: +3$/m);
    expect(edited.stdout).not.toMatch(/(task|proj|user|label)_[0-9a-z]{26}/);

    const removed = await json(["tasks", "edit", "ENG-2", "--remove-label", "bug", "--due", "none"]);
    expect(removed.task).toMatchObject({ labels: [{ name: "P1" }], dueDate: null, estimate: 3 });
    expect((await json(["tasks", "edit", "ENG-2", "--add-label", "bug"])).task.labels.map((l) => l.name).sort()).toEqual(["P1", "bug"]);

    const both = await pm(["tasks", "edit", "ENG-2", "--label", "bug", "--add-label", "P1"], env);
    expect(both.code).toBe(2);
    const twoStdins = await pm(["tasks", "edit", "ENG-2", "--title", "-", "--description", "-"], env, "x");
    expect(twoStdins).toMatchObject({ code: 2 });
    expect(twoStdins.stderr).toMatch(/only one option can read standard input/);
    // `update` is `edit`.
    expect((await json(["tasks", "update", "ENG-2", "--title", "Sub step, refined"])).task.title).toBe("Sub step, refined");
  });

  it("closes (done or canceled), reopens, and deletes: asks on a terminal, and off one fails unless --yes", async () => {
    expect((await ok(["tasks", "close", "ENG-2"])).stdout).toBe("closed ENG-2 Sub step, refined (DONE)\n");
    expect((await json(["tasks", "close", "ENG-2", "--reason", "canceled"])).task.status).toBe("CANCELED");
    expect((await ok(["tasks", "reopen", "eng-2"])).stdout).toBe("reopened ENG-2 Sub step, refined (TODO)\n");
    expect((await pm(["tasks", "close", "ENG-2", "--reason", "later"], env)).code).toBe(2);
    // A duplicate: closed by the relation, which cancels it; --reason duplicate needs --duplicate-of.
    const dup = (await json(["tasks", "create", "--team", "ENG", "--title", "Same again"])).task.reference;
    expect((await ok(["tasks", "close", dup, "--reason", "duplicate", "--duplicate-of", "eng-1"])).stdout).toBe(
      `closed ${dup} Same again (CANCELED, duplicate of eng-1)\n`,
    );
    expect((await json(["tasks", "view", dup])).task.relations).toMatchObject([{ type: "duplicate_of", task: { reference: "ENG-1" } }]);
    expect((await pm(["tasks", "close", "ENG-2", "--reason", "duplicate"], env)).code).toBe(2);
    await ok(["tasks", "delete", dup, "--yes"]);

    const doomed = await json(["tasks", "create", "--team", "ENG", "--title", "Doomed"]);
    const ref = doomed.task.reference;
    // Piped, no terminal: no prompt, exit 1, nothing deleted.
    const piped = await pm(["tasks", "delete", ref], env, "y\n");
    expect(piped).toMatchObject({ code: 1, stdout: "" });
    expect(piped.stderr).toBe(`error: no terminal to ask "Delete ${ref} Doomed?" on: add --yes to go ahead\n`);
    expect((await stack.call("GET", `/tasks/${ref}`, { key: owner.key })).status).toBe(200);
    // On a terminal: asked; "n" keeps it, "y" deletes it.
    const kept = await pmOnTerminal(["tasks", "delete", ref], env, "n\n");
    expect(kept.code, kept.stdout).toBe(0);
    expect(kept.stdout).toContain(`Delete ${ref} Doomed? [y/N]`);
    expect(kept.stdout).toContain("Nothing deleted.");
    expect((await stack.call("GET", `/tasks/${ref}`, { key: owner.key })).status).toBe(200);
    const gone = await pmOnTerminal(["tasks", "delete", ref], env, "y\n");
    expect(gone.stdout).toContain(`deleted ${ref} Doomed`);
    expect((await stack.call("GET", `/tasks/${ref}`, { key: owner.key })).status).toBe(404);
    const again = await json(["tasks", "create", "--team", "ENG", "--title", "Doomed too"]);
    expect((await ok(["tasks", "delete", again.task.reference, "--yes"])).stdout).toBe(`deleted ${again.task.reference} Doomed too\n`);
  });

  it("writes a description in $EDITOR on a terminal; off one, --editor fails (exit 1) and changes nothing", async () => {
    const editor = path.join(configHome, "editor.sh");
    writeFileSync(editor, '#!/bin/sh\nprintf "\\nAdded in the editor\\n" >> "$1"\n', { mode: 0o755 });
    const edited = await pmOnTerminal(["tasks", "edit", "ENG-1", "--editor", "--json", "description"], { ...env, EDITOR: editor });
    expect(edited.code, edited.stdout).toBe(0);
    expect(JSON.parse(edited.stdout.replace(/\r/g, "")).description).toBe("## Plan\n\nShip it\nAdded in the editor");
    const piped = await pm(["tasks", "edit", "ENG-1", "--editor"], { ...env, EDITOR: editor });
    expect(piped).toMatchObject({ code: 1, stdout: "" });
    expect(piped.stderr).toMatch(/^error: no terminal to open an editor on for the description: give --description or --body-file$/m);
    expect((await stack.call("GET", "/tasks/ENG-1", { key: owner.key })).body.task.description).toBe(
      "## Plan\n\nShip it\nAdded in the editor",
    );
  });

  it("lists with --label, --assignee @me, --status, --team, --project, --parent, --search, --blocked, --limit and --all", async () => {
    for (const title of ["Deploy the API", "Deploy the docs", "Write the docs"])
      await ok(["tasks", "create", "--team", "OPS", "--title", title]);
    const refs = async (args) => (await json(["tasks", "list", ...args, "--sort", "createdAt:asc"])).tasks.map((t) => t.reference);
    expect(await refs(["--label", "BUG"])).toEqual(["ENG-1", "ENG-2"]);
    expect(await refs(["--assignee", "@me"])).toEqual(["ENG-2"]);
    expect(await refs(["--assignee", "none", "--team", "ENG"])).toEqual(["ENG-1"]);
    expect(await refs(["--status", "todo,in_progress", "--team", "ops"])).toEqual(["OPS-1", "OPS-2", "OPS-3"]);
    expect(await refs(["--project", "eng-p1"])).toEqual(["ENG-2"]);
    expect(await refs(["--parent", "ENG-1"])).toEqual(["ENG-2"]);
    expect(await refs(["--search", "deploy"])).toEqual(["OPS-1", "OPS-2"]);
    // A name that names nothing is what an unknown id is in a filter: an empty list (docs/api.md, "Ids and names").
    expect(await refs(["--project", "ENG-P9"])).toEqual([]);
    await ok(["tasks", "link", "OPS-1", "--blocked-by", "OPS-2"]);
    expect(await refs(["--blocked", "--team", "OPS"])).toEqual(["OPS-1"]);

    // --limit is a page: the next one is named on stderr; --all reads every page.
    const first = await pm(["tasks", "list", "--limit", "2", "--sort", "createdAt:asc"], env);
    expect(first.stdout.trimEnd().split("\n")).toHaveLength(3);
    expect(first.stderr).toMatch(/^more: --cursor \S+\n$/);
    const all = await ok(["tasks", "list", "--limit", "2", "--all", "--sort", "createdAt:asc"]);
    expect(all.stdout.trimEnd().split("\n")).toHaveLength(6);
    expect(all.stderr).toBe("");
    const allJson = await json(["tasks", "list", "--limit", "2", "--all"]);
    expect(allJson.tasks).toHaveLength(5);
    expect(allJson.pagination.nextCursor).toBeNull();
  });

  it("--json field,field gives the records with only those fields; --jq filters them (jq, raw strings)", async () => {
    const narrowed = await ok(["tasks", "list", "--team", "OPS", "--sort", "createdAt:asc", "--json", "reference,title"]);
    expect(JSON.parse(narrowed.stdout)).toEqual([
      { reference: "OPS-1", title: "Deploy the API" },
      { reference: "OPS-2", title: "Deploy the docs" },
      { reference: "OPS-3", title: "Write the docs" },
    ]);
    expect(JSON.parse((await ok(["tasks", "view", "ENG-2", "--json", "reference,status"])).stdout)).toEqual({
      reference: "ENG-2",
      status: "TODO",
    });
    // After the argument, and before it: a reference or an id is never taken for the fields.
    expect(JSON.parse((await ok(["tasks", "get", "--json", "ENG-2"])).stdout).task.reference).toBe("ENG-2");
    const jq = await ok([
      "tasks",
      "list",
      "--team",
      "OPS",
      "--sort",
      "createdAt:asc",
      "--jq",
      '.tasks[] | select(.title | startswith("Deploy")) | .reference',
    ]);
    expect(jq.stdout).toBe("OPS-1\nOPS-2\n");
    expect((await ok(["whoami", "--jq", ".role"])).stdout).toBe("OWNER\n");
    const unknown = await pm(["tasks", "list", "--json", "reference,bogus"], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: unknown JSON field 'bogus'; available: .*reference/m);
    const broken = await pm(["tasks", "list", "--jq", ".tasks["], env);
    expect(broken).toMatchObject({ code: 2, stdout: "" });
    expect(broken.stderr).toMatch(/^error: --jq: .*syntax error/m);
  });
});

describe("pm comments", () => {
  it("lists a task's comments (`pm comments ENG-1`), edits and deletes your latest or one by id", async () => {
    expect((await ok(["comment", "ENG-1", "First"])).stdout).toBe("commented on ENG-1\n");
    const second = await json(["comment", "ENG-1", "Second"]);
    const listed = await ok(["comments", "eng-1"]);
    expect(listed.stdout).toMatch(/^WHEN +AUTHOR +COMMENT\n\S+ \S+ UTC +Smoke daily +First\n\S+ \S+ UTC +Smoke daily +Second\n$/);
    expect((await ok(["comment", "edit", "ENG-1", "Second, edited"])).stdout).toBe("comment edited\n");
    expect((await ok(["comment", "edit", second.comment.id, "-"], "Second, from a pipe\n")).stdout).toBe("comment edited\n");
    expect(JSON.parse((await ok(["comments", "ENG-1", "--jq", "[.comments[].content]"])).stdout)).toEqual(["First", "Second, from a pipe"]);
    const piped = await pm(["comment", "delete", "ENG-1"], env);
    expect(piped).toMatchObject({ code: 1 });
    expect(piped.stderr).toMatch(/no terminal to ask "Delete the comment "Second, from a pipe"\?" on: add --yes/);
    expect((await ok(["comment", "delete", "ENG-1", "--yes"])).stdout).toBe("comment deleted\n");
    expect((await json(["comments", "ENG-1"])).comments.map((c) => c.content)).toEqual(["First"]);
  });
});

describe("output that names things", () => {
  it("tasks view: parent, project, milestone by name and the sub-tasks with their status; history and events by name", async () => {
    const parent = await ok(["tasks", "view", "ENG-1"]);
    expect(parent.stdout).toMatch(/^parent: +-\nproject: +-\nmilestone: +-\n/m);
    expect(parent.stdout).toMatch(/\n1 sub-task:\nREF +STATUS +TITLE\nENG-2 +TODO +Sub step, refined\n/);
    const child = await ok(["tasks", "view", "ENG-2"]);
    expect(child.stdout).toMatch(/^parent: +ENG-1 Write the engine\nproject: +ENG-P1 Launch\nmilestone: +-$/m);
    expect(child.stdout).not.toMatch(/sub-task/);

    await ok(["tasks", "edit", "ENG-1", "--assignee", "@me"]);
    const history = await ok(["tasks", "history", "ENG-1", "--limit", "1"]);
    expect(history.stdout).toMatch(/task\.updated +assignee: – → Smoke daily\n$/);

    const events = await ok(["events", "--types", "comment.created"]);
    expect(events.stdout).toMatch(/comment\.created +comment on ENG-1 +Smoke daily \(api_key\)/);
    const assigned = await ok(["events", "--types", "task.updated", "--resource", "ENG-1"]);
    expect(assigned.stdout.trimEnd().split("\n").at(-1)).toMatch(/ENG-1 +Smoke daily \(api_key\) +assignee: – → Smoke daily$/);
    // For scripts, one JSON event per line, also through --jq.
    const contents = await ok(["events", "--types", "comment.created", "--jq", "{type, content: .data.content}"]);
    expect(contents.stdout.split("\n")[0]).toBe('{"type":"comment.created","content":"First"}');
  });
});

describe("pm api", () => {
  it("takes gh api's flags: GET by default, POST with parameters, -X, -f, -F (typed, @file, key[]), -H, --input, -q, --paginate", async () => {
    expect(JSON.parse((await ok(["api", "/me"])).stdout).user.email).toBe(owner.email);
    expect((await ok(["api", "me", "-q", ".role"])).stdout).toBe("OWNER\n");
    // With -X GET, parameters are the query (a key given twice is repeated, as `in` takes it).
    const get = await ok(["api", "-X", "GET", "/tasks", "-f", "limit=1", "-f", "sort[createdAt]=asc", "--jq", ".tasks[0].reference"]);
    expect(get.stdout).toBe("ENG-1\n");
    const statuses = ["-f", "filter[in][status]=TODO", "-f", "filter[in][status]=DONE", "-q", "[.tasks[].status] | unique"];
    expect(JSON.parse((await ok(["api", "-X", "GET", "/tasks", ...statuses])).stdout)).toEqual(["TODO"]);
    // Parameters without -X: POST, as gh does.
    const posted = JSON.parse((await ok(["api", "labels", "-f", "name=docs", "-f", "color=#0075CA"])).stdout);
    expect(posted.label).toMatchObject({ name: "docs", color: "#0075CA" });
    const done = ["api", "-X", "PATCH", "/tasks/ENG-1", "-f", "status=DONE", "-q", ".task.status"];
    expect((await ok(done)).stdout).toBe("DONE\n");
    expect((await ok(["api", "-X", "PATCH", "/tasks/ENG-1", "-f", "status=TODO", "-F", "estimate=5", "-q", ".task.estimate"])).stdout).toBe(
      "5\n",
    );
    // -F: numbers, true/false/null as JSON, key[] an array, @file a file's text.
    const labels = await ok([
      "api",
      "-X",
      "PATCH",
      "/tasks/ENG-1",
      "-F",
      "labelIds[]=bug",
      "-F",
      "dueDate=null",
      "-q",
      "[.task.labels[].name]",
    ]);
    expect(JSON.parse(labels.stdout)).toEqual(["bug"]);
    const notes = path.join(configHome, "api-notes.md");
    writeFileSync(notes, "From a file");
    const fromFile = await ok(["api", "/comments", "-f", "taskId=ENG-1", "-F", `content=@${notes}`, "-q", ".comment.content"]);
    expect(fromFile.stdout).toBe("From a file\n");
    const input = await ok(
      ["api", "/comments", "--input", "-", "--json", "content"],
      JSON.stringify({ taskId: "ENG-1", content: "Via pm api" }),
    );
    expect(JSON.parse(input.stdout)).toEqual({ content: "Via pm api" });
    const deleted = await ok(["api", "-X", "DELETE", `/labels/${posted.label.id}`]);
    expect(deleted.stdout).toBe("");
    // --paginate: every page as one answer.
    const everyTask = (await json(["tasks", "list", "--all"])).tasks.map((t) => t.reference);
    const paged = await ok(["api", "-X", "GET", "/tasks", "-f", "limit=2", "--paginate", "-q", "[.tasks[].reference]"]);
    expect(JSON.parse(paged.stdout)).toEqual(everyTask);
    expect(everyTask.length).toBeGreaterThan(2);
    // -H: a request header (here If-None-Match: 304, no body, exit 0); -i the answer's status line and headers.
    const included = await ok(["api", "/me", "-i"]);
    expect(included.stdout).toMatch(/^HTTP 200 OK\n(.+\n)*etag: W\/"\w+"\n/);
    const etag = /^etag: (.+)$/m.exec(included.stdout)[1];
    expect((await ok(["api", "/me", "-H", `If-None-Match: ${etag}`, "-i"])).stdout).toMatch(/^HTTP 304 Not Modified\n/);

    const missing = await pm(["api", "/tasks/ENG-99"], env);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toEqual({ error: { code: "NOT_FOUND", message: expect.any(String) } });
    expect(missing.stderr).toMatch(/^error: NOT_FOUND: /);
    expect((await pm(["api", "-X", "FETCH", "/me"], env)).code).toBe(2);
    expect((await pm(["api", "/me", "-F", "x=@/nonexistent"], env)).code).toBe(2);
    expect((await pm(["api", "-X", "POST", "/tasks", "--paginate"], env)).code).toBe(2);
    // Without a credential: exit 3, as every command.
    expect((await pm(["api", "/me"], { PM_BASE_URL: stack.base })).code).toBe(3);
  });
});

describe("gh's habits", () => {
  it("-L, --state open|closed|all, -s/-a/-l/-S, a bare task number, global options before the command, whoami's teams by prefix", async () => {
    const refs = async (args, extra = env) => {
      const result = await pm(["tasks", "list", ...args, "--sort", "createdAt:asc", "--json", "reference,status,assignee"], extra);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout);
    };
    const mine = await refs(["-L", "5", "--state", "open", "-a", "@me"]);
    expect(mine.length).toBeGreaterThan(0);
    for (const task of mine) {
      expect(task.assignee.email).toBe(owner.email);
      expect(["DONE", "CANCELED"]).not.toContain(task.status);
    }
    await ok(["tasks", "close", "OPS-3"]);
    expect((await refs(["-s", "closed", "-l", "bug"])).map((t) => t.reference)).toEqual([]);
    expect((await refs(["--state", "closed", "--team", "OPS"])).map((t) => t.reference)).toEqual(["OPS-3"]);
    expect((await refs(["-s", "all", "-S", "docs"])).map((t) => t.reference)).toEqual(["OPS-2", "OPS-3"]);
    expect((await refs(["-L", "2"])).length).toBe(2);
    expect((await pm(["tasks", "list", "--state", "done"], env)).code).toBe(2);
    expect((await pm(["tasks", "list", "--state", "open", "--status", "todo"], env)).code).toBe(2);
    await ok(["tasks", "reopen", "OPS-3"]);

    // A bare number is a task of the default team: PM_TEAM, else the only team the credential sees.
    const two = await pm(["tasks", "view", "1"], env);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/^error: 1 is a task number, but of which team\? .*PM_TEAM/m);
    expect((await pm(["tasks", "view", "1"], { ...env, PM_TEAM: "OPS" })).stdout).toMatch(/^reference: +OPS-1$/m);
    const single = await signUp(stack, "single");
    const singleEnv = { PM_API_KEY: single.key, PM_BASE_URL: stack.base };
    expect((await pm(["teams", "create", "Engineering", "--prefix", "ENG"], singleEnv)).code).toBe(0);
    for (let n = 1; n <= 12; n++) expect((await pm(["tasks", "create", "--team", "ENG", "-t", `Task ${n}`], singleEnv)).code).toBe(0);
    const twelve = await pm(["tasks", "view", "12"], singleEnv);
    expect(twelve.stdout).toMatch(/^reference: +ENG-12$/m);
    expect(twelve.stdout).toMatch(/^title: +Task 12$/m);
    expect((await pm(["comment", "#12", "By number"], singleEnv)).stdout).toBe("commented on ENG-12\n");

    // Global options before the command's words.
    expect((await pm(["--base-url", stack.base, "whoami", "-q", ".role"], env)).stdout).toBe("OWNER\n");
    expect((await pm(["--workspace", "x", "tasks", "list"], env)).stderr).toMatch(/--workspace picks one of your logins/);

    // whoami names a bound key's teams by prefix, though the key may not read teams.
    const narrow = await ok(["keys", "create", "--name", "narrow", "--scope", "tasks:write", "--team", "OPS"]);
    const key = narrow.stdout.trim().split("\n").at(-1);
    const who = await pm(["whoami"], { PM_API_KEY: key, PM_BASE_URL: stack.base });
    expect(who.stdout, who.stderr).toMatch(/^teams: +OPS$/m);
    expect((await pm(["whoami"], env)).stdout).toMatch(/^teams: +all$/m);
  }, 90_000);
});

describe("on a terminal", () => {
  /** `pm args` on a pseudo-terminal `columns` wide (util-linux `script`); its output, line ends as the terminal's. */
  function onTerminalOf(columns, args, extra = {}) {
    const command = `stty cols ${columns}; ${[process.execPath, bin, ...args].map((w) => `'${w}'`).join(" ")}`;
    const { NO_COLOR, ...inherited } = process.env;
    const run = spawnSync("script", ["-qec", command, "/dev/null"], { encoding: "utf8", env: { ...inherited, ...env, ...extra } });
    expect(run.status, run.stderr).toBe(0);
    return run.stdout.replace(/\r\n/g, "\n");
  }

  it("tables fit the terminal's width; colour only there, and never with NO_COLOR", async () => {
    const coloured = onTerminalOf(30, ["tasks", "list", "--team", "OPS", "--sort", "createdAt:asc"]);
    const [BOLD, PLAIN] = ["\u001b[1m", "\u001b[22m"];
    const lines = coloured.trimEnd().split("\n");
    expect(lines[0].startsWith(BOLD) && lines[0].endsWith(PLAIN)).toBe(true);
    const shown = lines.map((line) => line.replace(BOLD, "").replace(PLAIN, ""));
    expect(shown[0]).toMatch(/^REF +STATUS +PRIORITY +ASSI…$/);
    expect(shown[1]).toMatch(/^OPS-1 +TODO +NONE +- +…$/);
    for (const line of shown) expect(line.length).toBeLessThanOrEqual(30);
    const plain = onTerminalOf(30, ["tasks", "list", "--team", "OPS"], { NO_COLOR: "1" });
    expect(plain).not.toContain("\u001b");
    expect(plain.split("\n")[0]).toMatch(/^REF +STATUS +PRIORITY +ASSI…$/);
    // Piped: whole lines and no escape codes, NO_COLOR or not.
    const piped = await pm(["tasks", "list", "--team", "OPS", "--sort", "createdAt:asc"], { ...env, NO_COLOR: undefined, COLUMNS: "30" });
    expect(piped.stdout).not.toContain("\u001b");
    expect(piped.stdout.split("\n")[1]).toMatch(/^OPS-1 +TODO +NONE +- +Deploy the API$/);
  });
});
