// The check every api() call runs (helpers/openapi-conformance.ts) refuses what the served document does not
// describe, so the suite passing means its responses conform rather than that nothing was checked.
import { beforeAll, describe, expect, it } from "vitest";
import { fetchApp, get, patch, post } from "./helpers/api";
import { newTeam, newTenant, type Tenant } from "./helpers/fixtures";
import { type OpenApi, servedOpenApi } from "./helpers/openapi-conformance";

let t: Tenant;
let openApi: OpenApi;
let taskId: string;
let task: Record<string, unknown>;
/** An id for the `{id}` of a list's path, by its first segment. */
const owners: Record<string, string> = {};

const common = () => new Headers({ "content-type": "application/json", "x-request-id": "r", "server-timing": "total;dur=1" });
const problemsOf = (method: string, path: string, status: number, body: unknown, headers = common()) =>
  openApi.problems(method, `http://api.test${path}`, status, headers, body === undefined ? "" : JSON.stringify(body));

beforeAll(async () => {
  t = await newTenant();
  openApi = await servedOpenApi();
  const team = await newTeam(t);
  const created = await post("/tasks", { title: "Conform", teamId: team.id }, t.owner.key);
  taskId = created.body.task.id;
  task = created.body.task;
  const project = await post("/projects", { name: "Conform", teamId: team.id }, t.owner.key);
  const milestone = await post("/milestones", { name: "Conform", projectId: project.body.project.id }, t.owner.key);
  Object.assign(owners, { teams: team.id, tasks: taskId, projects: project.body.project.id, milestones: milestone.body.milestone.id });
  const webhook = await post("/webhooks", { url: "https://hooks.example.com/conform", events: ["invite.deleted"] }, t.owner.key);
  owners.webhooks = webhook.body.webhook.id;
  const agent = await post("/agents", { name: "Conform bot" }, t.owner.key);
  const delegated = await patch(`/tasks/${taskId}`, { delegateId: agent.body.agent.id }, t.owner.key);
  owners["agent-sessions"] = delegated.body.task.session.id;
});

describe("the response check", () => {
  it("matches requests to operations: literal paths before templates, references as {id}, the method too", () => {
    expect(openApi.operation("POST", "/invites/redeem")?.path).toBe("/invites/redeem");
    expect(openApi.operation("GET", "/invites/inv_1")?.path).toBe("/invites/{id}");
    expect(openApi.operation("GET", "/tasks/ENG-12/comments")?.path).toBe("/tasks/{id}/comments");
    expect(openApi.operation("PUT", "/tasks/ENG-12")).toBeNull();
    expect(openApi.operation("GET", "/no/such/route")).toBeNull();
  });

  it("passes a real answer and the same answer re-checked", async () => {
    const res = await get(`/tasks/${taskId}`, t.owner.key);
    expect(res.status).toBe(200);
    expect(openApi.problems("GET", `http://api.test/tasks/${taskId}`, 200, res.headers, JSON.stringify(res.body))).toEqual([]);
  });

  it("refuses a body that breaks its schema: a missing required field, a wrong type, an unknown enum value", () => {
    const headers = common();
    headers.set("etag", 'W/"x"');
    expect(problemsOf("GET", `/tasks/${taskId}`, 200, { task }, headers)).toEqual([]);
    expect(problemsOf("GET", "/tasks", 200, { tasks: [task] }, headers).join()).toMatch(/pagination/);
    expect(problemsOf("POST", "/tasks", 201, { task: { ...task, title: 7 } }).join()).toMatch(/title/);
    expect(problemsOf("GET", `/tasks/${taskId}`, 200, { task: { ...task, statusCategory: "someday" } }, headers).join()).toMatch(
      /statusCategory/,
    );
    expect(problemsOf("GET", `/tasks/${taskId}`, 404, { message: "no" }).join()).toMatch(/error/);
    expect(problemsOf("PATCH", `/tasks/${taskId}`, 422, { errors: { title: "too long" } }).join()).toMatch(/errors\/title/);
  });

  it("refuses an undocumented status, a missing documented header, an undocumented body or content type", () => {
    expect(problemsOf("GET", `/tasks/${taskId}`, 418, { error: { code: "TEAPOT", message: "" } }).join()).toMatch(/418 is not documented/);
    expect(problemsOf("GET", `/tasks/${taskId}`, 200, { task }).join()).toMatch(/header ETag is missing/);
    expect(problemsOf("POST", "/tasks", 201, { task }).join()).toMatch(/header Location is missing/);
    expect(problemsOf("DELETE", `/tasks/${taskId}`, 204, { deleted: true }).join()).toMatch(/documents no body/);
    expect(problemsOf("DELETE", `/tasks/${taskId}`, 204, undefined)).toEqual([]);
    const html = new Headers({ "content-type": "text/html", "x-request-id": "r", "server-timing": "total;dur=1", etag: 'W/"x"' });
    expect(openApi.problems("GET", `http://api.test/tasks/${taskId}`, 200, html, "<p>task</p>").join()).toMatch(
      /content-type "text\/html"/,
    );
  });

  it("checks an unknown route's error against the Error shape", async () => {
    const res = await fetchApp(new Request("http://api.test/no/such/route"));
    expect(res.status).toBe(404);
    expect(problemsOf("GET", "/no/such/route", 404, { error: "gone" }).join()).toMatch(/Error/);
  });
});

/** A value of a documented query parameter's schema, as it goes in a query string (an array: each item). */
function sample(schema: Record<string, any>): string[] {
  if (schema.anyOf) return sample(schema.anyOf[0]);
  if (schema.enum) return [String(schema.enum[0])];
  if (schema.example !== undefined) return [String(schema.example)];
  if (schema.type === "array") return [...sample(schema.items), ...sample(schema.items)];
  if (schema.format === "date") return ["2026-01-31"];
  if (schema.format === "date-time") return ["2026-01-31T12:00:00.000Z"];
  return [{ number: "1", boolean: "true" }[schema.type as string] ?? "x"];
}

describe("the documented filter and sort parameters", () => {
  const LIMITS = { filter: 20, sort: 5 };
  it("are each accepted by the list that documents them (at most 20 filters or 5 sort keys a request)", async () => {
    let lists = 0;
    for (const { method, path, op } of openApi.operations()) {
      const params = ((op.parameters ?? []) as Record<string, any>[]).map(openApi.resolve);
      const url = path.replace("{id}", () => owners[path.split("/")[1]]);
      for (const kind of ["filter", "sort"] as const) {
        const documented = params.filter((p) => p.in === "query" && p.name.startsWith(`${kind}[`));
        if (method !== "get" || documented.length === 0) continue;
        if (kind === "filter") lists++;
        for (let i = 0; i < documented.length; i += LIMITS[kind]) {
          const query = new URLSearchParams(
            documented.slice(i, i + LIMITS[kind]).flatMap((p) => sample(p.schema).map((value) => [p.name, value])),
          );
          const res = await get(`${url}?${query}`, t.owner.key);
          expect(res.status, `GET ${url}?${decodeURIComponent(String(query))}: ${JSON.stringify(res.body)}`).toBe(200);
        }
      }
    }
    expect(lists).toBe(30);
  });

  it("leave the list machinery's checks as they were: an undocumented name is 400 with the allowed ones", async () => {
    for (const query of ["filter[eq][colour]=red", "filter[like][title]=x", "sort[colour]=asc", "filter[eq]=x"]) {
      const res = await get(`/tasks?${query}`, t.owner.key);
      expect(res.status, query).toBe(400);
    }
    expect((await get("/tasks?filter[eq][colour]=red", t.owner.key)).body.error.details.allowed).toContain("priority");
  });
});
