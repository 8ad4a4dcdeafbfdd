// An event's `data` comes from the field map the module writing it declares (`eventRecords`, src/http/module.ts): the
// renderer iterates the app's modules and lists no record of its own. An app whose labels module declares another map
// renders label events with it; an app that leaves an event type of the register without a map is not built.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app";
import type { ResourceModule } from "../../../src/http/module";
import { MODULES } from "../../../src/resources";
import { labelRecord } from "../../../src/resources/labels/record";
import { newTenant, type Tenant } from "../../helpers/fixtures";

const { color: _color, ...withoutColor } = labelRecord.fields;
const labelsWithoutColor = (m: ResourceModule): ResourceModule =>
  m.name === "labels" ? { ...m, eventRecords: { label: withoutColor } } : m;
const narrowed = buildApp(MODULES.map(labelsWithoutColor));
const own = buildApp();

async function call(app: ReturnType<typeof buildApp>, method: string, path: string, key: string, body?: unknown) {
  const ctx = createExecutionContext();
  const headers = { "svc-api-key": key, "content-type": "application/json" };
  const res = await app.fetch(
    new Request(`http://api.test${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as any };
}

let t: Tenant;
let labelId: string;
beforeAll(async () => {
  t = await newTenant("Event records");
  const made = await call(own, "POST", "/labels", t.owner.key, { name: "Mapped", color: "#00AA00" });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  labelId = made.body.label.id;
});

describe("event records declared by the modules", () => {
  it("renders a resource's events with the field map its module declares", async () => {
    const path = `/events?types=label.created&resourceId=${labelId}`;
    const [ownEvent] = (await call(own, "GET", path, t.owner.key)).body.events;
    const [narrowedEvent] = (await call(narrowed, "GET", path, t.owner.key)).body.events;
    expect(ownEvent.data).toMatchObject({ id: labelId, name: "Mapped", color: "#00AA00" });
    expect(narrowedEvent.id).toBe(ownEvent.id);
    const { color: _, ...rest } = ownEvent.data;
    expect(narrowedEvent.data).toEqual(rest);
  });

  it("builds no app whose modules leave an event type without a field map", () => {
    const labels = MODULES.find((m) => m.name === "labels") as ResourceModule;
    expect(() => buildApp(MODULES.map((m) => (m === labels ? { ...labels, eventRecords: undefined } : m)))).toThrow(
      "The module labels writes label events but declares no field map for them (eventRecords)",
    );
    expect(() => buildApp(MODULES.filter((m) => m.name !== "relations"))).toThrow(
      "No module of the app writes task_relation events: nothing would render them",
    );
  });
});
