// `pm sync DIR` against the real `npm start` (docs/sync.md): a snapshot into a folder, one JSON file a record, then the
// changes since, applied on the next run from the position it stored (resumable), a delete removing its file; a stored
// position the stream no longer keeps takes a new snapshot.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { endCliSession, pmRunner, startCliSession } from "./lib/pm.mjs";
import { STARTUP_MS } from "./lib/stack.mjs";

let stack;
let owner;
let env;
let configHome;
let dir;
const { pm } = pmRunner(() => configHome);

beforeAll(async () => {
  ({ stack, owner, env, configHome } = await startCliSession("sync"));
  dir = mkdtempSync(path.join(tmpdir(), "pm-sync-dir-"));
}, STARTUP_MS + 30_000);

afterAll(async () => {
  await endCliSession({ stack, configHome });
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 40_000);

const record = (type, id) => JSON.parse(readFileSync(path.join(dir, type, `${id}.json`), "utf8"));
const state = () => JSON.parse(readFileSync(path.join(dir, ".pm-sync.json"), "utf8"));

it("takes a snapshot, then applies the changes since from its stored position; a position past the kept events takes a new snapshot", async () => {
  const team = (await stack.call("POST", "/teams", { key: owner.key, body: { name: "Sync", prefix: "SYN" } })).body.team;
  const kept = (await stack.call("POST", "/tasks", { key: owner.key, body: { teamId: team.id, title: "kept" } })).body.task;
  const doomed = (await stack.call("POST", "/tasks", { key: owner.key, body: { teamId: team.id, title: "doomed" } })).body.task;

  const first = await pm(["sync", dir, "--types", "task,team"], env);
  expect(first.code, first.stderr).toBe(0);
  expect(record("task", kept.id)).toMatchObject({ id: kept.id, title: "kept", reference: "SYN-1" });
  expect(record("team", team.id)).toMatchObject({ prefix: "SYN" });
  const snapshotAt = state().position;
  expect(snapshotAt).toMatch(/^evt_/);

  // Changes while it is not running: the next run applies them, from where it stopped.
  await stack.call("PATCH", `/tasks/${kept.id}`, { key: owner.key, body: { title: "kept, renamed" } });
  expect((await stack.call("DELETE", `/tasks/${doomed.id}`, { key: owner.key })).status).toBe(204);
  const added = (await stack.call("POST", "/tasks", { key: owner.key, body: { teamId: team.id, title: "added" } })).body.task;
  const second = await pm(["sync", dir, "--types", "task,team"], env);
  expect(second.code, second.stderr).toBe(0);
  expect(second.stderr).toMatch(/applied 3 change/);
  expect(record("task", kept.id).title).toBe("kept, renamed");
  expect(existsSync(path.join(dir, "task", `${doomed.id}.json`))).toBe(false);
  expect(record("task", added.id).title).toBe("added");
  expect(state().position).not.toBe(snapshotAt);
  // What the folder holds is what a fresh snapshot holds.
  const fresh = mkdtempSync(path.join(tmpdir(), "pm-sync-fresh-"));
  expect((await pm(["sync", fresh, "--types", "task,team"], env)).code).toBe(0);
  for (const type of ["task", "team"]) {
    const files = readdirSync(path.join(dir, type)).sort();
    expect(files).toEqual(readdirSync(path.join(fresh, type)).sort());
    for (const file of files)
      expect(readFileSync(path.join(dir, type, file), "utf8")).toBe(readFileSync(path.join(fresh, type, file), "utf8"));
  }
  rmSync(fresh, { recursive: true, force: true });

  // A stored position older than the 30 days of events kept: 410, so a new snapshot.
  writeFileSync(path.join(dir, ".pm-sync.json"), JSON.stringify({ ...state(), position: "evt_01jz8x4q0be0sv3c5kq9v1y2ab" }));
  const third = await pm(["sync", dir, "--types", "task,team"], env);
  expect(third.code, third.stderr).toBe(0);
  expect(third.stderr).toMatch(/older than the events kept/);
  expect(record("task", kept.id).title).toBe("kept, renamed");
  expect(state().position).toMatch(/^evt_/);
}, 60_000);
