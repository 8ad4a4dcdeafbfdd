// A resource is one module (src/http/module.ts): a resource defined here, in this file alone, with a table of the
// test's own schema, is served by an app built with it (buildApp) with everything the service's own resources get from
// their modules and route policies: its scope (403 naming it), If-Match (412), the body limit (413), Idempotency-Key
// (a replay), a batch read, its tag and operations in the document, and its MCP tool in tools/list and tools/call.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { createRoute, z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app";
import type { Caller } from "../../../src/auth/caller";
import { AppError } from "../../../src/core/errors";
import type { Db } from "../../../src/db/client";
import type { ResourceModule } from "../../../src/http/module";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../../src/http/openapi";
import { reading } from "../../../src/http/read-route";
import { protectedRoute } from "../../../src/http/route-base";
import { created, IdParam } from "../../../src/http/route-schemas";
import { newRouter } from "../../../src/http/router";
import { tool } from "../../../src/http/tool";
import { MODULES } from "../../../src/resources";
import { newTenant, type Tenant, withDb } from "../../helpers/fixtures";
import { keyWith } from "../../helpers/least-privilege";

// ---- the resource: notes, in a schema of this test's own ----

const TABLE = "throwaway.notes";
const Note = z.object({ id: z.string(), body: z.string() }).openapi("ThrowawayNote");
const NoteBody = z.object({ body: z.string().min(1) }).strict();
const one = z.object({ note: Note });

async function getNote(caller: Caller, db: Db, id: string) {
  const { workspace } = await caller.principal();
  const { rows } = await db.execute<{ id: string; body: string }>(
    sql`select id, body from throwaway.notes where id = ${id} and workspace_id = ${workspace.id}`,
  );
  if (!rows[0]) throw new AppError("NOT_FOUND", "Note not found");
  return { note: rows[0] };
}

async function writeNote(caller: Caller, body: string, id?: string) {
  const { workspace } = await caller.principal();
  const { rows } = await caller.db.execute<{ id: string; body: string }>(
    id
      ? sql`update throwaway.notes set body = ${body} where id = ${id} and workspace_id = ${workspace.id} returning id, body`
      : sql`insert into throwaway.notes values (${`note_${crypto.randomUUID().replaceAll("-", "").slice(0, 26)}`}, ${workspace.id}, ${body})
          returning id, body`,
  );
  if (!rows[0]) throw new AppError("NOT_FOUND", "Note not found");
  return rows[0];
}

const base = protectedRoute("Notes");
const read = createRoute({
  ...base,
  method: "get",
  operationId: "getNote",
  path: "/notes/{id}",
  summary: "A note",
  request: { params: IdParam },
  responses: { 200: jsonResponse(one, "The note"), ...errorResponses(["UNAUTHORIZED", "NOT_FOUND"]) },
});
const create = createRoute({
  ...base,
  method: "post",
  operationId: "createNote",
  path: "/notes",
  summary: "Write a note",
  request: jsonBody(NoteBody),
  responses: { 201: createdResponse(one, "Written"), ...errorResponses(["UNAUTHORIZED", "FORBIDDEN"], { validation: true }) },
});
const update = createRoute({
  ...base,
  method: "patch",
  operationId: "updateNote",
  path: "/notes/{id}",
  summary: "Rewrite a note",
  request: { params: IdParam, ...jsonBody(NoteBody) },
  responses: { 200: jsonResponse(one, "Rewritten"), ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }) },
});

const noteRoutes = newRouter()
  .openapi(
    read,
    reading(read, ({ caller, param, db }) => getNote(caller, db, param.id)),
  )
  .openapi(create, async (c) => {
    const note = await writeNote(c.get("caller"), c.req.valid("json").body);
    return created(c, "note", `/notes/${note.id}`, note);
  })
  .openapi(update, async (c) => c.json({ note: await writeNote(c.get("caller"), c.req.valid("json").body, c.req.valid("param").id) }, 200));

const notes: ResourceModule = {
  name: "notes",
  resource: { tag: "Notes", scope: "tasks:write", reads: ["notes"], conditional: true, table: TABLE },
  tagWords: "Notes, a resource this test defines",
  routes: [noteRoutes],
  tools: [
    tool({
      name: "get_note",
      title: "Get a note",
      description: "A note (GET /notes/{id}).",
      rest: "GET /notes/{id}",
      input: z.object({ id: z.string() }).strict(),
      output: one,
      run: async (ctx, { id }) => getNote(ctx.caller, ctx.caller.db, id),
    }),
  ],
};

// ---- the app serving it, beside the service's own resources ----

const app = buildApp([...MODULES, notes]);

async function call(method: string, path: string, opts: { key: string; body?: unknown; raw?: string; headers?: Record<string, string> }) {
  const headers = new Headers({ "svc-api-key": opts.key, "content-type": "application/json", ...opts.headers });
  const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`http://api.test${path}`, { method, headers, body }), env, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

const rpc = (key: string, method: string, params: Record<string, unknown>) =>
  call("POST", "/mcp", {
    key,
    body: { jsonrpc: "2.0", id: 1, method, params },
    headers: { accept: "application/json, text/event-stream" },
  });

let t: Tenant;
let readOnly: string;

beforeAll(async () => {
  await withDb(async (db) => {
    await db.execute(sql`create schema if not exists throwaway`);
    await db.execute(sql`create table if not exists throwaway.notes (id text primary key, workspace_id text not null, body text not null)`);
  });
  t = await newTenant("Throwaway resource");
  readOnly = await keyWith(t.owner.key, { scopes: ["read"] });
});

afterAll(() => withDb((db) => db.execute(sql`drop schema throwaway cascade`)));

describe("a resource defined as one module", () => {
  it("is served with its scope: a key without it is 403 naming it; one with it writes", async () => {
    const refused = await call("POST", "/notes", { key: readOnly, body: { body: "no" } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "FORBIDDEN", details: { requiredScope: "tasks:write" } });
    const written = await call("POST", "/notes", { key: t.owner.key, body: { body: "first" } });
    expect(written.status, JSON.stringify(written.body)).toBe(201);
    expect(written.headers.get("location")).toBe(`/notes/${written.body.note.id}`);
    // Its GET reads with `read`.
    expect((await call("GET", `/notes/${written.body.note.id}`, { key: readOnly })).body).toEqual(written.body);
  });

  it("honours If-Match on its PATCH: a stale tag is 412 and nothing is written; the GET's tag writes", async () => {
    const { note } = (await call("POST", "/notes", { key: t.owner.key, body: { body: "v1" } })).body;
    const got = await call("GET", `/notes/${note.id}`, { key: t.owner.key });
    const stale = await call("PATCH", `/notes/${note.id}`, {
      key: t.owner.key,
      body: { body: "v2" },
      headers: { "if-match": 'W/"stale"' },
    });
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe("PRECONDITION_FAILED");
    expect((await call("GET", `/notes/${note.id}`, { key: t.owner.key })).body.note.body).toBe("v1");
    const fresh = await call("PATCH", `/notes/${note.id}`, {
      key: t.owner.key,
      body: { body: "v2" },
      headers: { "if-match": got.headers.get("etag") as string },
    });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    expect(fresh.body.note.body).toBe("v2");
  });

  it("limits its JSON body to 1 MiB (413)", async () => {
    const res = await call("POST", "/notes", { key: t.owner.key, raw: JSON.stringify({ body: "x".repeat(1024 * 1024 + 1) }) });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("takes Idempotency-Key on its POST: a repeat gets the first answer, replayed", async () => {
    const headers = { "idempotency-key": `note-${Date.now()}` };
    const first = await call("POST", "/notes", { key: t.owner.key, body: { body: "once" }, headers });
    const again = await call("POST", "/notes", { key: t.owner.key, body: { body: "once" }, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });

  it("answers a batch item with its GET's read", async () => {
    const { note } = (await call("POST", "/notes", { key: t.owner.key, body: { body: "batched" } })).body;
    const res = await call("POST", "/batch", { key: readOnly, body: { requests: [`/notes/${note.id}`, "/notes/note_missing"] } });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toEqual({ note });
    expect(res.body.results[1].error.code).toBe("NOT_FOUND");
  });

  it("is in the document: its tag, its operations with their scope and If-Match", async () => {
    const doc = (await call("GET", "/openapi.json", { key: t.owner.key })).body;
    expect(doc.tags).toContainEqual({ name: "Notes", description: "Notes, a resource this test defines" });
    expect(doc.paths["/notes"].post).toMatchObject({ operationId: "createNote", tags: ["Notes"], "x-required-scope": "tasks:write" });
    expect(doc.paths["/notes/{id}"].get["x-required-scope"]).toBe("read");
    const patchParameters = doc.paths["/notes/{id}"].patch.parameters.map((p: { $ref?: string }) => p.$ref);
    expect(patchParameters).toContain("#/components/parameters/IfMatch");
    expect(doc.paths["/notes"].post.parameters.map((p: { $ref?: string }) => p.$ref)).toContain("#/components/parameters/IdempotencyKey");
  });

  it("offers its MCP tool in tools/list and answers tools/call with its read", async () => {
    const { note } = (await call("POST", "/notes", { key: t.owner.key, body: { body: "by MCP" } })).body;
    const listed = await rpc(readOnly, "tools/list", {});
    expect(listed.status).toBe(200);
    expect(listed.body.result.tools.map((tool: { name: string }) => tool.name)).toContain("get_note");
    const called = await rpc(readOnly, "tools/call", { name: "get_note", arguments: { id: note.id } });
    expect(called.body.result.structuredContent).toEqual({ note });
  });
});
