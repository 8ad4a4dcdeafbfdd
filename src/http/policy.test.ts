// A route's policy is what it declares, read on the route the router matched: a route shaped like an upload, an import
// or an export gets the defaults unless it says otherwise, and the route that answers is the one whose policy counts.
import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { declaredPolicies, matchedParams, matchedRoute, type RoutePolicy, routePolicy } from "./policy";
import { protectedRoute, publicRoute } from "./route-base";
import { newRouter } from "./router";

const ok = { 200: { description: "ok", content: { "application/json": { schema: z.object({}) } } } };
const IdParams = z.object({ id: z.string() });

function probe() {
  const app = newRouter();
  const seen: Array<{ policy: RoutePolicy; path?: string; secured?: boolean; params: Record<string, string> }> = [];
  app.use("*", async (c, next) => {
    const route = matchedRoute(c);
    seen.push({ policy: routePolicy(c), path: route?.path, secured: route?.secured, params: matchedParams(c) });
    await next();
  });
  const route = (path: string, method: "get" | "post", base: Pick<RouteConfig, "tags" | "security" | "middleware">) =>
    createRoute({ ...base, method, path, request: { params: IdParams }, responses: ok });
  app
    // Shaped like an attachment upload and a team import, declaring nothing: the defaults.
    .openapi(route("/tasks/{id}/attachments", "post", publicRoute("Tasks")), (c) => c.json({}, 200))
    .openapi(route("/teams/{id}/import", "post", publicRoute("Teams")), (c) => c.json({}, 200))
    // Shaped like nothing in particular, declaring an upload and no ETag.
    .openapi(route("/things/{id}", "post", publicRoute("Things", { body: "upload", etag: false })), (c) => c.json({}, 200))
    .openapi(route("/things/{id}", "get", protectedRoute("Things", { via: "import" })), (c) => c.json({}, 200));
  // The protected route refuses the missing credential after the probe saw its policy: that refusal is not under test.
  app.onError((_err, c) => c.body(null, 401));
  return { app, seen };
}

describe("route policies", () => {
  it("are read on the matched route, never from the URL's shape", async () => {
    const { app, seen } = probe();
    await app.request("/tasks/T1/attachments", { method: "POST" });
    await app.request("/teams/T1/import", { method: "POST" });
    await app.request("/things/x%2Fy", { method: "POST" });
    expect(seen).toEqual([
      { policy: {}, path: "/tasks/:id/attachments", secured: false, params: { id: "T1" } },
      { policy: {}, path: "/teams/:id/import", secured: false, params: { id: "T1" } },
      { policy: { body: "upload", etag: false }, path: "/things/:id", secured: false, params: { id: "x/y" } },
    ]);
  });

  it("are the answering method's, and a request no route answers has the defaults", async () => {
    const { app, seen } = probe();
    await app.request("/things/1", { method: "GET" });
    await app.request("/nowhere", { method: "POST" });
    expect(seen.map(({ policy, secured }) => ({ policy, secured }))).toEqual([
      { policy: { via: "import" }, secured: true },
      { policy: {}, secured: undefined },
    ]);
  });

  it("are listed for the document by method and documented path", () => {
    const policyOf = declaredPolicies(probe().app.routes);
    expect(policyOf("post", "/things/{id}")).toEqual({ body: "upload", etag: false });
    expect(policyOf("get", "/things/{id}")).toEqual({ via: "import" });
    expect(policyOf("post", "/tasks/{id}/attachments")).toEqual({});
  });
});
