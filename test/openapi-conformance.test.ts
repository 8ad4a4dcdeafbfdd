// The check every api() call runs (helpers/openapi-conformance.ts) refuses what the served document does not
// describe, so the suite passing means its responses conform rather than that nothing was checked.
import { beforeAll, describe, expect, it } from "vitest";
import { fetchApp, get, post } from "./helpers/api";
import { newTeam, newTenant, type Tenant } from "./helpers/fixtures";
import { type OpenApi, servedOpenApi } from "./helpers/openapi-conformance";

let t: Tenant;
let openApi: OpenApi;
let taskId: string;
let task: Record<string, unknown>;

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
    expect(problemsOf("GET", `/tasks/${taskId}`, 200, { task: { ...task, status: "SOMEDAY" } }, headers).join()).toMatch(/status/);
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
