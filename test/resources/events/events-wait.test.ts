// GET /events?wait= (docs/events.md, "Waiting for the next event"): an empty answer waits for the next event the caller
// may read, or answers empty when the time is up; every waiter of the isolate shares one watcher, which costs the
// database at most one statement a second. Through HTTP against the real database.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { eventWatcher } from "../../../src/db/event-watcher";
import worker from "../../../src/index";
import { get, patch, post } from "../../helpers/api";
import { addMember, type Member, newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";

let tenant: Tenant;
let team: TeamFixture;
let member: Member;

/** A GET answered at `answeredAt` (when its body arrived, before the request's after-answer work is waited for). */
async function timedGet(path: string, key: string): Promise<{ status: number; body: any; answeredAt: number }> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://api.test${path}`, { headers: { "svc-api-key": key } }) as Request<unknown, IncomingRequestCfProperties>,
    env,
    ctx,
  );
  const body = await res.json();
  const answeredAt = Date.now();
  await waitOnExecutionContext(ctx);
  return { status: res.status, body, answeredAt };
}

const newest = async (key: string) => {
  let path = "/events?limit=250";
  let last: any;
  for (;;) {
    const res = await get(path, key);
    last = res.body.events.at(-1) ?? last;
    if (!res.body.pagination.nextCursor) return last;
    path = `/events?limit=250&cursor=${encodeURIComponent(res.body.pagination.nextCursor)}`;
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The 30 s wait, sent as the file starts and read by its test: it runs while the other tests do (30 s this file
 * would otherwise spend idle), in a workspace of its own where nothing is written.
 */
let longWait: Promise<{ started: number; res: Awaited<ReturnType<typeof timedGet>> }>;

beforeAll(async () => {
  const quiet = await newTenant("Waiting long");
  const after = (await newest(quiet.owner.key)).id;
  const started = Date.now();
  longWait = timedGet(`/events?after=${after}&wait=30`, quiet.owner.key).then((res) => ({ started, res }));
  // Its test reads the outcome; a run that leaves that test out (-t) must not see a failure as unhandled.
  longWait.catch(() => {});
  tenant = await newTenant("Waiting");
  team = await newTeam(tenant, { prefix: "WAIT" });
  member = await addMember(tenant, "MEMBER");
});

describe("GET /events?wait=", () => {
  it("refuses a wait outside 1..30 seconds as the list refuses a limit (422 at wait)", async () => {
    for (const wait of ["0", "31", "-1", "1.5", "soon", ""]) {
      const res = await get(`/events?wait=${wait}`, tenant.owner.key);
      expect(res.status, wait).toBe(422);
      expect(res.body).toEqual({ errors: { wait: ["wait must be a whole number of seconds between 1 and 30"] } });
    }
  });

  it("answers at once when events are there", async () => {
    const started = Date.now();
    const res = await get("/events?wait=30&limit=1", tenant.owner.key);
    expect(res.status).toBe(200);
    expect(res.body.events).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("answers empty when the time is up and nothing was written", async () => {
    const after = (await newest(tenant.owner.key)).id;
    const started = Date.now();
    const res = await timedGet(`/events?after=${after}&wait=3`, tenant.owner.key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ events: [], pagination: { limit: 50, nextCursor: null } });
    expect(res.answeredAt - started).toBeGreaterThanOrEqual(3000);
    expect(res.answeredAt - started).toBeLessThan(4000);
  });

  it("answers within a second of the commit of a write made 2 s into the wait", async () => {
    const after = (await newest(tenant.owner.key)).id;
    const waiting = timedGet(`/events?after=${after}&wait=10`, tenant.owner.key);
    await sleep(2000);
    const created = await post("/tasks", { teamId: team.id, title: "Wakes the waiter" }, tenant.owner.key);
    const committedAt = Date.now();
    expect(created.status).toBe(201);
    const res = await waiting;
    expect(res.body.events.map((e: any) => [e.type, e.resourceId])).toEqual([["task.created", created.body.task.id]]);
    expect(res.answeredAt - committedAt).toBeLessThan(1000);
    console.log(`answered ${res.answeredAt - committedAt} ms after the write's answer`);
  });

  it("keeps waiting through events the caller may not read, and answers with the next it may", async () => {
    const after = (await newest(member.key)).id;
    const started = Date.now();
    const waiting = timedGet(`/events?after=${after}&wait=8`, member.key);
    await sleep(1000);
    // An API key's event reaches ADMIN/OWNER only: the member's wait goes on.
    expect((await post("/api-keys", { name: "not for members" }, tenant.owner.key)).status).toBe(201);
    await sleep(1500);
    const task = await post("/tasks", { teamId: team.id, title: "For everyone" }, tenant.owner.key);
    const res = await waiting;
    expect(res.body.events.map((e: any) => e.resourceId)).toEqual([task.body.task.id]);
    expect(res.answeredAt - started).toBeGreaterThan(2500);
  });

  it("50 waiting clients cost the database at most one statement a second in all", { timeout: 30_000 }, async () => {
    // Waiters in two workspaces, so the one statement watches both.
    const other = await newTenant("Waiting too");
    const afters = [(await newest(tenant.owner.key)).id, (await newest(other.owner.key))?.id];
    const before = eventWatcher.statements;
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        i % 2 === 0
          ? timedGet(`/events?after=${afters[0]}&wait=10`, tenant.owner.key)
          : timedGet(`/events${afters[1] ? `?after=${afters[1]}&` : "?"}wait=10`, other.owner.key),
      ),
    );
    const seconds = (Date.now() - started) / 1000;
    const statements = eventWatcher.statements - before;
    expect(answers.every((a) => a.status === 200 && a.body.events.length === 0)).toBe(true);
    // Measured: 10 statements for 50 clients over 10 s (one a second, each held by the database up to a second).
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThanOrEqual(Math.ceil(seconds));
    console.log(`50 waiting clients, ${seconds.toFixed(1)} s: ${statements} watcher statements`);
  });

  it("wakes only the workspace that moved", async () => {
    const other = await newTenant("Not moving");
    const [mine, theirs] = [(await newest(tenant.owner.key)).id, (await newest(other.owner.key))?.id];
    const waitingHere = timedGet(`/events?after=${mine}&wait=6`, tenant.owner.key);
    const waitingThere = timedGet(`/events${theirs ? `?after=${theirs}&` : "?"}wait=4`, other.owner.key);
    await sleep(1000);
    const task = await patch(`/workspaces/${tenant.workspaceId}`, { name: "Waiting, renamed" }, tenant.owner.key);
    expect(task.status).toBe(200);
    expect((await waitingHere).body.events.map((e: any) => e.type)).toEqual(["workspace.updated"]);
    expect((await waitingThere).body.events).toEqual([]);
  });

  it("wait=30 with no writes answers empty after 30 s (±1)", { timeout: 40_000 }, async () => {
    const { started, res } = await longWait;
    expect(res.body.events).toEqual([]);
    expect(Math.abs(res.answeredAt - started - 30_000)).toBeLessThanOrEqual(1000);
  });
});
