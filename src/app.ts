import { createRoute, z } from "@hono/zod-openapi";
import type { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { etag, RETAINED_304_HEADERS } from "hono/etag";
import { requestId } from "hono/request-id";
import { AppError } from "./core/errors";
import { CONDITIONAL, REGISTERED, RESOURCE_NAMES, type ResourceName, TAGS } from "./core/resources";
import type { AppEnv } from "./http/context";
import { errorResponse } from "./http/error-mapper";
import { methodNotAllowedOr404 } from "./http/method-not-allowed";
import { finishDocument, jsonResponse, registerOpenApiComponents } from "./http/openapi";
import { settlingOutcome } from "./http/outcome";
import { requestDb } from "./http/request-db";
import { publicRoute } from "./http/route-base";
import { newRouter } from "./http/router";
import { EXPORT_PATH, IMPORT_PATH, publicBaseUrl, UPLOAD_PATH } from "./http/urls";
import { mcpRoutes } from "./mcp/routes";
import { rejectUnkeepableText } from "./middleware/body-guard";
import { edgeWorkspace } from "./middleware/edge-workspace";
import { eventContext } from "./middleware/event-context";
import { fileRelay } from "./middleware/file-relay";
import { ifMatch, type Readers } from "./middleware/if-match";
import { oauthErrors } from "./middleware/oauth-errors";
import { checksInOrder } from "./middleware/order-of-checks";
import { rateLimit } from "./middleware/rate-limit";
import { safeRetries } from "./middleware/safe-retries";
import { settleAsked } from "./middleware/settle-asked";
import { webhookRelay } from "./middleware/webhook-relay";
import { agentRoutes } from "./resources/agents/routes";
import { apiKeyRoutes, readApiKey } from "./resources/api-keys/routes";
import { attachmentRoutes } from "./resources/attachments/routes";
import { batchRoutes } from "./resources/batch/routes";
import { commentRoutes, readComment } from "./resources/comments/routes";
import { deviceRoutes } from "./resources/device/routes";
import { eventRoutes } from "./resources/events/routes";
import { fieldRoutes, readField } from "./resources/fields/routes";
import { inviteRoutes, readInvite } from "./resources/invites/routes";
import { labelRoutes, readLabel } from "./resources/labels/routes";
import { loginRoutes } from "./resources/login/routes";
import { meRoutes } from "./resources/me/routes";
import { milestoneRoutes, readMilestone } from "./resources/milestones/routes";
import { oauthRoutes } from "./resources/oauth/routes";
import { projectRoutes, readProject } from "./resources/projects/routes";
import { searchRoutes } from "./resources/search/routes";
import { signupRoutes } from "./resources/signup/routes";
import { benchRoutes } from "./resources/system/bench";
import { docsRoutes } from "./resources/system/docs";
import { systemRoutes } from "./resources/system/routes";
import { taskRelationRoutes } from "./resources/tasks/relation-routes";
import { readTask, taskRoutes } from "./resources/tasks/routes";
import { taskLinkRoutes } from "./resources/tasks/task-link-routes";
import { readTeamMember, teamMemberRoutes } from "./resources/team-members/routes";
import { readTeam, teamRoutes } from "./resources/teams/routes";
import { transferRoutes } from "./resources/transfer/routes";
import { importRoutes, readImport } from "./resources/transfer/staged-routes";
import { readUser, userRoutes } from "./resources/users/routes";
import { readWebhook, webhookRoutes } from "./resources/webhooks/routes";
import { readWorkspace, workspaceRoutes } from "./resources/workspaces/routes";

/**
 * Public documents (docs/edge.md): the same for every caller, so any cache (the caller's, a CDN, the front Worker's)
 * may keep them five minutes, then revalidate by their weak ETag (a 304 without the body).
 */
const PUBLIC_DOCUMENTS = new Set(["/", "/openapi.json", "/docs", "/.well-known/jwks.json"]);
const PUBLIC_DOCUMENT_CACHE = "public, max-age=300";

const MAX_BODY_BYTES = 1024 * 1024;
/** Import routes take a whole export (docs/api.md, conventions). */
const MAX_IMPORT_BYTES = 32 * 1024 * 1024;

const DOCUMENT = {
  openapi: "3.1.0",
  info: {
    title: "Project Management API",
    version: "1.0.0",
    description: [
      "Workspaces with their members (people and AI agents), invites and API keys; teams with members and roles; tasks with",
      "references like `ENG-42`, subtasks, labels and assignees; projects (`ENG-P3`) with milestones; comments on tasks, projects",
      "and milestones; custom fields (definitions at `/fields`, values in `customFields`). Sign-up and login by emailed code;",
      "scripts log in with the device flow (RFC 8628). AI agents may also use the MCP endpoint `POST /mcp` (JSON-RPC, described",
      "by the Model Context Protocol, not here).",
      "",
      "Authenticate with an API key in `svc-api-key` or a JWT from the device flow in `Authorization: Bearer`.",
      "Lists take `limit`, `cursor`, `fields`, `filter[<op>][<field>]` and `sort[<field>]`. Errors are",
      "`{error:{code,message,details?}}`, validation failures 422 `{errors:{<field>:[message]}}`. A create answers 201 with",
      "`Location`; GETs (and PATCH answers) carry a weak `ETag` and answer 304 to a matching `If-None-Match`; PATCH and DELETE take it back in `If-Match` (412 when stale, nothing written); every POST takes an `Idempotency-Key` (a repeat within 24 h gets the first answer); answers carry `RateLimit-*` headers (429 with `Retry-After` over the limit); bodies are limited to 1 MiB (32 MiB on the import routes, 25 MiB on attachment uploads);",
      "every response carries `x-request-id` and `Server-Timing`. A method a path does not serve is 405 `METHOD_NOT_ALLOWED` with",
      "`Allow` listing the methods it does (an unknown path is 404).",
    ].join("\n"),
  },
} as const;

/** The document's tags: the register's, as far as a registered resource uses them. */
const DOCUMENT_TAGS = Object.fromEntries(Object.entries(TAGS).filter(([tag]) => REGISTERED.some((r) => r.tag === tag)));

const openapiRoute = createRoute({
  ...publicRoute("System"),
  method: "get",
  operationId: "getOpenApiDocument",
  path: "/openapi.json",
  summary: "This OpenAPI 3.1 document",
  description:
    "Built for the deployment that serves it: `servers` is its public base URL; development-only routes appear only when switched on.",
  responses: { 200: jsonResponse(z.record(z.string(), z.unknown()), "The document") },
});

const docsRoute = createRoute({
  ...publicRoute("System"),
  method: "get",
  operationId: "getApiReference",
  path: "/docs",
  summary: "Interactive reference (Swagger UI) of this document",
  description: "An HTML page served by the Worker itself; it loads `/openapi.json`.",
  responses: { 200: { description: "The page", content: { "text/html": { schema: z.string() } } } },
});

const indexRoute = createRoute({
  ...publicRoute("System"),
  method: "get",
  operationId: "getIndex",
  path: "/",
  summary: "Where to start: the service's name and version, and links to its reference, this document and its health",
  description: "What a person (or a program) finds at the base URL.",
  responses: {
    200: jsonResponse(
      z
        .object({
          name: z.string(),
          version: z.string(),
          links: z.object({
            docs: z.string().openapi({ example: "http://127.0.0.1:8787/docs" }),
            openapi: z.string().openapi({ example: "http://127.0.0.1:8787/openapi.json" }),
            health: z.string().openapi({ example: "http://127.0.0.1:8787/health" }),
          }),
        })
        .openapi("Index"),
      "The index",
    ),
  },
});

export function buildApp() {
  const app = newRouter();
  // Filled from the binding below; the batch reads it per request, once the app is built.
  const readers: Readers = {};
  // Each registered resource's routes and its one-record read (If-Match, the order of checks, the batch), in the register's order.
  const BINDING: Record<ResourceName, { routes: Array<Hono<AppEnv>>; read?: Readers[string] }> = {
    system: { routes: [systemRoutes, benchRoutes] },
    signup: { routes: [signupRoutes] },
    login: { routes: [loginRoutes] },
    device: { routes: [deviceRoutes] },
    me: { routes: [meRoutes] },
    users: { routes: [userRoutes], read: readUser },
    workspaces: { routes: [workspaceRoutes], read: readWorkspace },
    invites: { routes: [inviteRoutes], read: readInvite },
    agents: { routes: [agentRoutes] },
    "api-keys": { routes: [apiKeyRoutes], read: readApiKey },
    labels: { routes: [labelRoutes], read: readLabel },
    fields: { routes: [fieldRoutes], read: readField },
    teams: { routes: [teamRoutes], read: readTeam },
    "team-members": { routes: [teamMemberRoutes], read: readTeamMember },
    tasks: { routes: [taskRoutes, taskRelationRoutes], read: readTask },
    attachments: { routes: [attachmentRoutes] },
    links: { routes: [taskLinkRoutes] },
    projects: { routes: [projectRoutes], read: readProject },
    milestones: { routes: [milestoneRoutes], read: readMilestone },
    events: { routes: [eventRoutes] },
    comments: { routes: [commentRoutes], read: readComment },
    webhooks: { routes: [webhookRoutes], read: readWebhook },
    search: { routes: [searchRoutes] },
    transfer: { routes: [transferRoutes] },
    imports: { routes: [importRoutes], read: readImport },
    oauth: { routes: [oauthRoutes] },
    mcp: { routes: [mcpRoutes] },
    batch: { routes: [batchRoutes(app)] },
  };
  Object.assign(readers, Object.fromEntries(RESOURCE_NAMES.map((name) => [name, BINDING[name].read])));
  // A conditional resource without its read would silently lose its If-Match check: no app is built so.
  for (const name of Object.keys(CONDITIONAL))
    if (!readers[name]) throw new Error(`${name} is conditional (src/core/resources.ts) but app.ts binds no read for it`);

  app.use("*", requestId());
  // Outside every other middleware, so that all of a token endpoint's refusals are answered in OAuth's shape.
  app.use("*", oauthErrors);
  app.use("*", requestDb);
  app.use(
    "*",
    cors({
      origin: "*",
      exposeHeaders: [
        "x-request-id",
        "Server-Timing",
        "ETag",
        "Location",
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
        "Retry-After",
        "Idempotent-Replayed",
      ],
    }),
  );
  const limitBody = (maxSize: number, words: string) =>
    bodyLimit({
      maxSize,
      onError: () => {
        throw new AppError("PAYLOAD_TOO_LARGE", `Request body is larger than ${words}`);
      },
    });
  const defaultLimit = limitBody(MAX_BODY_BYTES, "1 MiB");
  const importLimit = limitBody(MAX_IMPORT_BYTES, "32 MiB");
  // An upload streams its bytes to storage and keeps its own, larger limit (MAX_ATTACHMENT_BYTES).
  app.use("*", (c, next) => {
    if (c.req.method === "POST" && UPLOAD_PATH.test(c.req.path)) return next();
    return (IMPORT_PATH.test(c.req.path) ? importLimit : defaultLimit)(c, next);
  });
  app.use("*", rejectUnkeepableText);
  app.use("*", rateLimit);
  app.use("*", eventContext);
  // The front Worker asks after a write the API Worker dropped: settled, never run again.
  app.use("*", settleAsked(app, readers));
  // After the response of a request that wrote: its events' webhook deliveries go to the queue (src/webhooks/relay.ts).
  app.use("*", webhookRelay);
  // After a delete: the stored bytes of the attachments it removed go to the files queue (src/files/deletions.ts).
  app.use("*", fileRelay);
  // Asked by the front Worker (src/front/): the caller's workspace of a successful answer, for its read-your-writes.
  app.use("*", edgeWorkspace);
  app.use("*", async (c, next) => {
    await next();
    if (PUBLIC_DOCUMENTS.has(c.req.path) && (c.res.status === 200 || c.res.status === 304)) {
      c.res.headers.set("cache-control", PUBLIC_DOCUMENT_CACHE);
    }
  });
  // A 304 is rebuilt by the middleware; it keeps the request id like every other response (docs/api.md, conventions).
  const etags = etag({ weak: true, retainedHeaders: [...RETAINED_304_HEADERS, "x-request-id"] });
  // Not on an export: each is a new document (its exportedAt), and hashing a streamed one would hold all of it.
  app.use("*", (c, next) => (EXPORT_PATH.test(c.req.path) ? next() : etags(c, next)));
  // PATCH/DELETE with If-Match: checked against the GET's ETag under the row's lock, in the write's transaction.
  app.use("*", ifMatch(readers));
  // POST with Idempotency-Key: the answer is stored in the write's transaction and replayed to a repeat.
  app.use("*", safeRetries);
  app.use("/_dev/webhooks", async (c, next) => {
    if (c.env.DEV_WEBHOOKS !== "true") throw new AppError("NOT_FOUND", "Route not found");
    await next();
  });
  app.use("/_bench/*", async (c, next) => {
    if (c.env.BENCH_ROUTES !== "true") throw new AppError("NOT_FOUND", "Route not found");
    await next();
  });

  for (const name of RESOURCE_NAMES) for (const routes of BINDING[name].routes) app.route("/", routes);

  registerOpenApiComponents(app.openAPIRegistry);
  // Generating the document costs ~20 ms of CPU and it changes only with the base URL and the dev switches: kept per
  // combination (a handful; cleared when full, as the base URL may come from the request's Host).
  const documents = new Map<string, ReturnType<typeof finishDocument>>();
  app.openapi(openapiRoute, (c) => {
    const serverUrl = publicBaseUrl(c);
    const switchedPaths = {
      "/_dev/": c.env.DEV_MAILBOX === "true" || c.env.DEV_WEBHOOKS === "true",
      "/_dev/mailbox": c.env.DEV_MAILBOX === "true",
      "/_dev/webhooks": c.env.DEV_WEBHOOKS === "true",
      "/_bench/": c.env.BENCH_ROUTES === "true",
    };
    const key = JSON.stringify([serverUrl, switchedPaths]);
    let doc = documents.get(key);
    if (!doc) {
      if (documents.size >= 8) documents.clear();
      doc = finishDocument(app.getOpenAPI31Document(DOCUMENT), {
        serverUrl,
        tags: DOCUMENT_TAGS,
        switchedPaths,
        conditionalWrites: Object.keys(CONDITIONAL),
      });
      documents.set(key, doc);
    }
    return c.json(doc, 200);
  });
  app.openAPIRegistry.registerPath(docsRoute);
  app.route("/", docsRoutes);
  app.openapi(indexRoute, (c) => {
    const base = publicBaseUrl(c);
    const links = { docs: `${base}/docs`, openapi: `${base}/openapi.json`, health: `${base}/health` };
    return c.json({ name: DOCUMENT.info.title, version: DOCUMENT.info.version, links }, 200);
  });

  app.notFound(methodNotAllowedOr404(app));
  // A lost connection after a write went out is settled first (src/http/outcome.ts); input refusals come after 401 and 404.
  app.onError(checksInOrder(app, readers, settlingOutcome(app, readers, errorResponse)));
  return app;
}

export const app = buildApp();
