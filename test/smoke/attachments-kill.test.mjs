// A real stop between the two steps of an upload and of a removal (docs/api.md, "Attachments"), against `npm start`:
// each is held at its second step from a connection of the test's own to the stack's PostgreSQL, the stack's processes
// are killed (SIGKILL, nothing runs on the way out), the stack starts again on the same data, and the Cron Trigger
// (wrangler dev's /__scheduled, as `npm start` runs it) repairs both: its relay sends the outbox row the delete left to
// the queue, whose consumer removes the object; the hourly trigger's sweep (with a grace of 2 s, which only a local stack
// sets: DEV_FILES_SWEEP_GRACE_SECONDS) removes the object whose record was never written.
//
// The holds, without a hook in the code: an upload takes its workspace's lock (`files:<workspace>`) after its object is
// in R2 and before its record; the test holds that lock. After a delete's response the request's deferred work records
// its key's use (api_keys.last_used_at) and then relays the outbox; the test holds that key's row, so the relay waits.
// Both waits are bounded by the API's query timeout (5 s): the kill comes well within it.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/postgres.mjs";
import { descendantsOf } from "../../scripts/lib/stack.mjs";
import { newEngineeringTeam, STARTUP_MS, signUp, startStack } from "./lib/stack.mjs";

/** The sweep's grace in this stack: the stray object is older than this when the sweep runs. */
const GRACE_SECONDS = 2;
let stack;
let owner;
let env;

const blobs = () => {
  try {
    return readdirSync(path.join(stack.dataDir, "wrangler/v3/r2/pm-files/blobs")).length;
  } catch {
    return 0;
  }
};
const connect = async () => {
  const client = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${env.PG_PORT}/app` });
  // The kill ends its connection: expected, not a failure of the test process.
  client.on("error", () => {});
  await client.connect();
  return client;
};
async function until(what, check, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** SIGKILL to `npm start` and to the stack's own process group (PostgreSQL, the proxy, wrangler and workerd). */
async function killStack() {
  const postgres = Number(readFileSync(path.join(stack.dataDir, "pg/postmaster.pid"), "utf8").split("\n")[0]);
  // Each process group npm start or one of its processes leads (the stack runs in one of its own); a pid leading none is refused.
  const groups = descendantsOf(stack.pid);
  for (const group of [...groups, stack.pid]) {
    try {
      process.kill(-group, "SIGKILL");
    } catch {}
  }
  await until("the stack's processes to be gone", () => !alive(stack.pid) && !alive(postgres));
}

beforeAll(async () => {
  env = { PG_PORT: String(await freePort()), DEV_FILES_SWEEP_GRACE_SECONDS: String(GRACE_SECONDS) };
  stack = await startStack({ env });
  owner = await signUp(stack, "kill");
  await newEngineeringTeam(stack, owner);
  const task = await stack.call("POST", "/tasks", { key: owner.key, body: { teamId: "ENG", title: "Killed mid-way" } });
  expect(task.status, task.text).toBe(201);
}, STARTUP_MS + 30_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

const upload = (key, name, text) =>
  fetch(`${stack.base}/tasks/ENG-1/attachments?filename=${name}`, {
    method: "POST",
    headers: { "svc-api-key": key, "content-type": "text/plain", "content-length": String(Buffer.byteLength(text)) },
    body: text,
  });

describe("a kill between the two steps", () => {
  it(
    "an upload killed after its object, a delete killed before its object's removal: after a restart the Cron Trigger repairs both",
    async () => {
      const workspace = (await stack.call("GET", "/me", { key: owner.key })).body.workspace.id;
      const kept = await upload(owner.key, "deleted.txt", "removed after the restart\n");
      expect(kept.status).toBe(201);
      const deleted = (await kept.json()).attachment;
      // The delete's own key, used for the first time by the delete (its use is recorded after the response).
      const deleter = (await stack.call("POST", "/api-keys", { key: owner.key, body: { name: "deleter" } })).body.key;
      expect(blobs()).toBe(1);

      const db = await connect();
      await db.query("select pg_advisory_lock(hashtextextended('files:' || $1, 0))", [workspace]);
      await db.query("begin");
      await db.query("select 1 from api_keys where key_hash = $1 for update", [createHash("sha256").update(deleter).digest("hex")]);

      // The upload stores its object, then waits for the lock before its record.
      const held = upload(owner.key, "stray.txt", "never recorded\n").catch(() => null);
      await until("the held upload's object in the bucket", () => blobs() === 2);
      const removal = await stack.call("DELETE", `/attachments/${deleted.id}`, { key: deleter });
      expect(removal.status, removal.text).toBe(204);
      const outbox = `select count(*)::int as n from file_deletions where object_key = '${workspace}/${deleted.id}'`;
      expect((await db.query(outbox)).rows[0].n).toBe(1);
      // Both are waiting on the test's locks: the upload's record and the relay of the delete's outbox row.
      const waiting = async () =>
        (await db.query("select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock'")).rows[0].n;
      await until("the upload and the relay waiting", async () => (await waiting()) === 2, 3000);
      expect(blobs()).toBe(2);

      await killStack();
      expect(await held).toBeNull();
      stack = await startStack({ dataDir: stack.dataDir, env });

      // As the kill left them: the stray object without a record, the deleted record's object with its outbox row.
      const listed = await stack.call("GET", "/tasks/ENG-1/attachments", { key: owner.key });
      expect(listed.body.attachments).toEqual([]);
      expect(blobs()).toBe(2);
      const after = await connect();
      expect((await after.query(outbox)).rows[0].n).toBe(1);

      const tick = async (cron) => expect((await fetch(`${stack.base}/__scheduled?cron=${encodeURIComponent(cron)}`)).status).toBe(200);
      // A tick of the Cron Trigger: the relay sends the row again, the consumer removes its object, then the row.
      await tick("* * * * *");
      await until(
        "the deleted record's object removed and its outbox row gone",
        async () => blobs() === 1 && (await after.query(outbox)).rows[0].n === 0,
      );
      // The hourly sweep's trigger (src/files/sweep.ts), past the stray object's grace: the object without a record goes.
      await new Promise((r) => setTimeout(r, GRACE_SECONDS * 1000));
      await tick("17 * * * *");
      await until("the stray object removed", () => blobs() === 0);
      expect((await stack.call("GET", "/tasks/ENG-1/attachments", { key: owner.key })).body.attachments).toEqual([]);
      await after.end();
    },
    STARTUP_MS + 60_000,
  );
});
