import { describe, expect, it } from "vitest";
import { api, fetchApp, get } from "./helpers/api";

describe("HTTP foundation", () => {
  it("answers /health without credentials and reports timing and a request id", async () => {
    const res = await get("/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(res.headers.get("server-timing")).toMatch(/db;dur=[\d.]+;desc="0 queries",\s*tx;desc="0 transactions",\s*total;dur=[\d.]+/);
  });

  it("pings the database with ?deep=1 and counts the query", async () => {
    const res = await get("/health?deep=1");
    expect(res.status).toBe(200);
    expect(res.queries).toBe(1);
  });

  it("echoes a client's x-request-id", async () => {
    const res = await api("GET", "/health", { headers: { "x-request-id": "req-abc-123" } });
    expect(res.headers.get("x-request-id")).toBe("req-abc-123");
  });

  it("answers an unknown route with a JSON 404", async () => {
    const res = await get("/no/such/route");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(res.body.error.code).toBe("NOT_FOUND");
    expect(typeof res.body.error.message).toBe("string");
  });

  it("answers malformed JSON with 400 BAD_REQUEST", async () => {
    const res = await api("POST", "/signup/start", { rawBody: "{not json", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("BAD_REQUEST");
  });

  it("answers a body that is not JSON with 400 BAD_REQUEST, never 500", async () => {
    const { newTenant } = await import("./helpers/fixtures");
    const t = await newTenant("Media");
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
      const res = await api("POST", "/labels", { key: t.owner.key, rawBody: "name=x", headers: { "content-type": type } });
      expect(res.status, type).toBe(400);
      expect(res.body.error.code).toBe("BAD_REQUEST");
    }
  });

  it("refuses NUL characters in body strings with 422 naming the field, never 500", async () => {
    const { newTenant } = await import("./helpers/fixtures");
    const t = await newTenant("Nul");
    const res = await api("POST", "/labels", { key: t.owner.key, body: { name: "a\u0000b", color: "#000000" } });
    expect(res.status).toBe(422);
    expect(res.body.errors.name).toEqual(["Must not contain NUL (\\u0000) characters"]);
    const nested = await api("POST", "/teams", { key: t.owner.key, body: { name: "ok", prefix: "NUL", description: "x\u0000" } });
    expect(nested.status).toBe(422);
    expect(Object.keys(nested.body.errors)).toEqual(["description"]);
    // A literal backslash-u sequence is ordinary text.
    const literal = await api("POST", "/labels", { key: t.owner.key, body: { name: "back\\u0000slash", color: "#000000" } });
    expect(literal.status).toBe(201);
    expect(literal.body.label.name).toBe("back\\u0000slash");
    // In a path or a filter it cannot match anything PostgreSQL stores: 400, not 500.
    for (const path of ["/labels/x%00y", "/tasks/ab%00cd", "/labels?filter[eq][name]=a%00b"]) {
      const r = await api("GET", path, { key: t.owner.key });
      expect(r.status, path).toBe(400);
      expect(r.body.error.code).toBe("BAD_REQUEST");
    }
  });

  it("rejects a body over 1 MiB with 413 PAYLOAD_TOO_LARGE", async () => {
    const big = JSON.stringify({ email: "a".repeat(1024 * 1024 + 10) });
    const res = await api("POST", "/signup/start", { rawBody: big, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("rejects unknown body fields with 422 naming the field", async () => {
    const res = await api("POST", "/signup/start", { body: { email: "x@example.com", emial: "typo" } });
    expect(res.status).toBe(422);
    expect(res.body.errors.emial).toEqual(["Unknown field"]);
  });

  it("serves the OpenAPI 3.1 document and the interactive reference", async () => {
    const doc = await get("/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe("3.1.0");
    expect(doc.body.info.version).toBe("1.0.0");
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(["/signup/start", "/signup/complete", "/me", "/health"]));
    const docs = await fetchApp(new Request("http://api.test/docs"));
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("/openapi.json");
  });

  it("exposes the bench reference routes only when BENCH_ROUTES is set (it is, in tests)", async () => {
    expect((await get("/_bench/ceiling")).status).toBe(200);
    const floor = await get("/_bench/floor");
    expect(floor.status).toBe(200);
    expect(floor.queries).toBe(1);
  });

  it("gives single GETs a weak ETag and honours If-None-Match", async () => {
    const first = await get("/health");
    const tag = first.headers.get("etag");
    expect(tag).toMatch(/^W\//);
    const second = await api("GET", "/health", { headers: { "if-none-match": tag! } });
    expect(second.status).toBe(304);
    expect(second.headers.get("x-request-id")).toBeTruthy();
    expect(second.headers.get("etag")).toBe(tag);
  });
});

describe("database outages", () => {
  it("answers 503 UNAVAILABLE with the documented body when the database cannot be reached", async () => {
    const { env, createExecutionContext } = await import("cloudflare:test");
    const { app } = await import("../src/app");
    // Addresses nothing listens on, for the WebSocket and the HTTP query: the driver cannot connect.
    const down = { ...env, DB_WS_PROXY: "127.0.0.1:9", DB_HTTP_PROXY: "127.0.0.1:9" };
    const res = await app.fetch(new Request("http://api.test/health?deep=1"), down, createExecutionContext());
    expect(res.status).toBe(503);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe("UNAVAILABLE");
    const authed = await app.fetch(
      new Request("http://api.test/me", { headers: { "svc-api-key": "pmk_x" } }),
      down,
      createExecutionContext(),
    );
    expect(authed.status).toBe(503);
    expect(((await authed.json()) as any).error.code).toBe("UNAVAILABLE");
  });
});

describe("OpenAPI coverage", () => {
  it("documents every operation the app serves", async () => {
    const { app } = await import("../src/app");
    const doc = (await get("/openapi.json")).body;
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries<any>(doc.paths))
      for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} ${path}`);
    // The reference page's initialiser, and MCP's JSON-RPC endpoint (described by the MCP specification).
    const undocumented = new Set(["GET /docs/init.js", "POST /mcp", "GET /mcp", "DELETE /mcp"]);
    const served = app.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`)
      .filter((r) => !undocumented.has(r));
    expect(served.filter((r) => !documented.has(r))).toEqual([]);
    expect(documented.size).toBeGreaterThan(40);
  });
});
