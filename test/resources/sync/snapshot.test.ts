// GET /sync/snapshot (docs/sync.md): the caller's records in NDJSON at one position of the stream, and the
// stream from that position: a snapshot with every later event applied equals a fresh snapshot, also when 8 writers
// create, update and delete while it is taken.
import fc from "fast-check";
import { TypeID } from "typeid-js";
import { beforeAll, describe, expect, it } from "vitest";
import { api, del, eventually, patch, post } from "../../helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";
import { keyWith } from "../../helpers/least-privilege";
import { applied, eventsAfter, snapshot } from "./sync-helpers";

let tenant: Tenant;
let eng: TeamFixture;
let ops: TeamFixture;
let labels: string[];

beforeAll(async () => {
  tenant = await newTenant("Sync");
  eng = await newTeam(tenant, { prefix: "SYE" });
  ops = await newTeam(tenant, { prefix: "SYO" });
  labels = [];
  for (const name of ["red", "blue", "green"])
    labels.push((await post("/labels", { name, color: "#00ff00" }, tenant.owner.key)).body.label.id);
});

describe("GET /sync/snapshot", () => {
  it("streams each record as its events render it, then the position; types and teams narrow it; a team-bound key reads its teams only", async () => {
    const task = (await post("/tasks", { teamId: eng.id, title: "in ENG", labelIds: [labels[1], labels[0]] }, tenant.owner.key)).body.task;
    const other = (await post("/tasks", { teamId: ops.id, title: "in OPS" }, tenant.owner.key)).body.task;
    const project = (await post("/projects", { teamId: eng.id, name: "P" }, tenant.owner.key)).body.project;

    const all = await snapshot(tenant.owner.key);
    expect(all.position).toMatch(/^evt_/);
    // A record as its events' data: the task's created event says the same.
    const [created] = (await eventsAfter(tenant.owner.key, null)).filter((e) => e.resourceId === task.id);
    expect(all.records.get(`task:${task.id}`)).toEqual(created.data);
    expect(all.records.get(`task:${task.id}`)).toMatchObject({ reference: task.reference, labelIds: [labels[0], labels[1]].sort() });
    for (const key of [`task:${other.id}`, `project:${project.id}`, `team:${eng.id}`, `label:${labels[0]}`])
      expect(all.records.has(key)).toBe(true);

    const tasks = await snapshot(tenant.owner.key, "?types=task&teamIds=sye");
    expect([...tasks.records.keys()].every((k) => k.startsWith("task:"))).toBe(true);
    expect(tasks.records.has(`task:${task.id}`)).toBe(true);
    expect(tasks.records.has(`task:${other.id}`)).toBe(false);

    const bound = await keyWith(tenant.owner.key, { teamIds: [ops.id] });
    const seen = await snapshot(bound, "?types=task,label,team");
    expect(seen.records.has(`task:${other.id}`)).toBe(true);
    expect(seen.records.has(`task:${task.id}`)).toBe(false);
    expect(seen.records.has(`team:${eng.id}`)).toBe(false);
    expect(seen.records.has(`label:${labels[0]}`)).toBe(true);

    // Another workspace reads none of it.
    const stranger = await newTenant("Sync stranger");
    const theirs = await snapshot(stranger.owner.key);
    expect([...theirs.records.keys()].some((k) => all.records.has(k))).toBe(false);
  });

  it("reads a snapshot whose types fit in one batch each in one transaction sent at once, with its credential: one round trip", async () => {
    const res = await api("GET", "/sync/snapshot?types=team,project,label", { key: tenant.owner.key });
    expect(res.status).toBe(200);
    // The credential with the position, and the three types' batches, in one transaction.
    expect({ queries: res.queries, transactions: res.transactions }).toEqual({ queries: 4, transactions: 1 });
    const lines = String(res.body).trim().split("\n");
    expect(JSON.parse(lines.at(-1)!)).toEqual({ position: expect.stringMatching(/^evt_/) });
  });

  it("refuses an unknown type (422), a missing credential (401) and a key without `read` (403)", async () => {
    const unknown = await api("GET", "/sync/snapshot?types=task,nope", { key: tenant.owner.key });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.types[0]).toMatch(/nope/);
    expect((await api("GET", "/sync/snapshot")).status).toBe(401);
    // A key of the right form that no one holds: found not live by the snapshot's own statement.
    const key = tenant.owner.key;
    const unknownKey = `${key.slice(0, -4)}${key.slice(-4) === "aaaa" ? "bbbb" : "aaaa"}`;
    const stranger = await api("GET", "/sync/snapshot?types=team", { key: unknownKey });
    expect(stranger.status).toBe(401);
    expect(String(stranger.body)).not.toMatch(/position/);
    const writer = await keyWith(tenant.owner.key, { scopes: ["tasks:write"] });
    const refused = await api("GET", "/sync/snapshot?types=task", { key: writer });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.requiredScope).toBe("read");
  });

  it("a position older than the stream keeps is 410 GONE: take a new snapshot", async () => {
    // An event id of 31 days ago (the stream prunes what is older than 30 days: src/records/events.ts).
    const ms = (Date.now() - 31 * 86_400_000).toString(16).padStart(12, "0");
    const old = TypeID.fromUUID("evt", `${ms.slice(0, 8)}-${ms.slice(8)}-7000-8000-000000000000`).toString();
    const res = await api("GET", `/events?after=${old}`, { key: tenant.owner.key });
    expect(res.status).toBe(410);
    expect(res.body.error.code).toBe("GONE");
  });
});

describe("snapshot + the events after its position == a fresh snapshot", () => {
  const TYPES = ["task", "project", "team", "label"];
  const op = fc.record({
    kind: fc.constantFrom("create", "create", "update", "update", "label", "delete", "project", "rename"),
    pick: fc.nat(),
    status: fc.constantFrom("TODO", "IN_PROGRESS", "DONE"),
    labels: fc.subarray([0, 1, 2]),
  });

  it("with 8 writers creating, updating and deleting tasks and projects and renaming their team while the snapshot is read", async () => {
    const team = await newTeam(tenant);
    const key = tenant.owner.key;
    const pool: string[] = [];
    for (let i = 0; i < 12; i++) pool.push((await post("/tasks", { teamId: team.id, title: `seed ${i}` }, key)).body.task.id);
    // Each rename takes a prefix of its own (a taken one would be 409).
    let renames = 0;
    let renamed = 0;

    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(op, { minLength: 3, maxLength: 8 }), { minLength: 8, maxLength: 8 }), async (plans) => {
        const write = async (step: { kind: string; pick: number; status: string; labels: number[] }, w: number, n: number) => {
          const id = pool[step.pick % pool.length];
          if (step.kind === "create") {
            const res = await post("/tasks", { teamId: team.id, title: `w${w} n${n}` }, key);
            if (res.status === 201) pool.push(res.body.task.id);
          } else if (step.kind === "update") await patch(`/tasks/${id}`, { status: step.status, title: `w${w} n${n}` }, key);
          else if (step.kind === "label") await patch(`/tasks/${id}`, { labelIds: step.labels.map((i) => labels[i]) }, key);
          else if (step.kind === "project") await post("/projects", { teamId: team.id, name: `w${w} n${n}` }, key);
          else if (step.kind === "rename") {
            if ((await patch(`/teams/${team.id}`, { prefix: `SYR${renames++}` }, key)).status === 200) renamed++;
          } else await del(`/tasks/${id}`, key);
        };
        const writers = plans.map(async (plan, w) => {
          for (const [n, step] of plan.entries()) await write(step, w, n);
        });
        // The snapshot is taken while the writers write (after the first of their writes have gone out).
        await new Promise((r) => setTimeout(r, 20));
        const taken = await snapshot(key, `?types=${TYPES.join(",")}`);
        await Promise.all(writers);
        // A write after all of theirs: once the stream shows its event, it shows every event of theirs (they ended
        // before it began). An event is readable once every transaction that began before it has ended, and another
        // file's may run long on a busy machine: waited for by that, not by the clock.
        const marker = (await post("/tasks", { teamId: team.id, title: "marker" }, key)).body.task.id;
        const fresh = await snapshot(key, `?types=${TYPES.join(",")}`);
        const caught = await eventually(async () => {
          const events = await eventsAfter(key, taken.position);
          return events.some((e) => e.type === "task.created" && e.resourceId === marker) && applied(taken, events, TYPES);
        }, 150_000);
        expect(Object.fromEntries(withoutClock(caught))).toEqual(Object.fromEntries(withoutClock(fresh.records)));
      }),
      { numRuns: 3, endOnFailure: true },
    );
    expect(renamed).toBeGreaterThan(0);
  }, 180_000);
});

/**
 * The records without `updatedAt`: a PATCH that changes nothing but the clock (a task's labels set to the ones it has)
 * moves a task's updatedAt and writes no event (docs/events.md: a bookkeeping-only update is none), so no stream can
 * carry it; every other field must be equal (docs/sync.md, "What it does not promise").
 */
const withoutClock = (records: Map<string, unknown>) =>
  new Map([...records].map(([k, v]) => [k, { ...(v as object), updatedAt: undefined }]));
