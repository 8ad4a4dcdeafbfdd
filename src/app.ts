import { createRoute, z } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { etag, RETAINED_304_HEADERS } from "hono/etag";
import { requestId } from "hono/request-id";
import { AppError } from "./core/errors";
import { errorResponse } from "./http/error-mapper";
import { methodNotAllowedOr404 } from "./http/method-not-allowed";
import { finishDocument, jsonResponse, registerOpenApiComponents } from "./http/openapi";
import { requestDb } from "./http/request-db";
import { publicRoute } from "./http/route-base";
import { newRouter } from "./http/router";
import { EXPORT_PATH, IMPORT_PATH, publicBaseUrl, UPLOAD_PATH } from "./http/urls";
import { mcpRoutes } from "./mcp/routes";
import { rejectUnkeepableText } from "./middleware/body-guard";
import { edgeWorkspace } from "./middleware/edge-workspace";
import { eventContext } from "./middleware/event-context";
import { fileRelay } from "./middleware/file-relay";
import { CONDITIONAL, ifMatch } from "./middleware/if-match";
import { oauthErrors } from "./middleware/oauth-errors";
import { checksInOrder } from "./middleware/order-of-checks";
import { rateLimit } from "./middleware/rate-limit";
import { safeRetries } from "./middleware/safe-retries";
import { webhookRelay } from "./middleware/webhook-relay";
import { agentRoutes } from "./resources/agents/routes";
import { apiKeyRoutes } from "./resources/api-keys/routes";
import { attachmentRoutes } from "./resources/attachments/routes";
import { batchRoutes } from "./resources/batch/routes";
import { commentRoutes } from "./resources/comments/routes";
import { deviceRoutes } from "./resources/device/routes";
import { eventRoutes } from "./resources/events/routes";
import { fieldRoutes } from "./resources/fields/routes";
import { inviteRoutes } from "./resources/invites/routes";
import { labelRoutes } from "./resources/labels/routes";
import { loginRoutes } from "./resources/login/routes";
import { meRoutes } from "./resources/me/routes";
import { milestoneRoutes } from "./resources/milestones/routes";
import { oauthRoutes } from "./resources/oauth/routes";
import { projectRoutes } from "./resources/projects/routes";
import { searchRoutes } from "./resources/search/routes";
import { signupRoutes } from "./resources/signup/routes";
import { benchRoutes } from "./resources/system/bench";
import { docsRoutes } from "./resources/system/docs";
import { systemRoutes } from "./resources/system/routes";
import { taskRelationRoutes } from "./resources/tasks/relation-routes";
import { taskRoutes } from "./resources/tasks/routes";
import { teamMemberRoutes } from "./resources/team-members/routes";
import { teamRoutes } from "./resources/teams/routes";
import { transferRoutes } from "./resources/transfer/routes";
import { importRoutes } from "./resources/transfer/staged-routes";
import { userRoutes } from "./resources/users/routes";
import { webhookRoutes } from "./resources/webhooks/routes";
import { workspaceRoutes } from "./resources/workspaces/routes";

/**
 * Public documents (contract §11): the same for every caller, so any cache (the caller's, a CDN, the front Worker's)
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

/** The document's tags (every operation's tag is one of them), in reading order. */
const TAGS: Record<string, string> = {
  Account: "Sign-up, login by emailed code, the caller (`/me`) and the keys that verify issued JWTs.",
  "Device flow": "Logging a script or CLI in (RFC 8628): a device code, approval by a person, a JWT.",
  OAuth: "The service as an OAuth 2.1 authorization server for agent hosts (MCP): metadata, registration, consent, tokens, grants.",
  Users: "The members of the current workspace, people and agents, with their workspace role.",
  Workspaces: "The caller's workspaces.",
  Invites: "Inviting people into the workspace (and its teams) by email.",
  Agents: "AI agents: workspace members owned by a person, with their own API key.",
  "API keys": "The caller's API keys and those of the caller's agents.",
  Teams: "Teams (nested, no cycles); each has a prefix that starts its task and project references.",
  "Team members": "Team memberships and their roles (OWNER, ADMIN, MEMBER, VIEWER).",
  Tasks: "Tasks by id or reference (`ENG-12`), with subtasks, labels, assignee, project and milestone.",
  Projects: "Projects by id or reference (`ENG-P3`), with lead, labels and dates.",
  Milestones: "Milestones of a project.",
  Comments: "Markdown comments on tasks, projects and milestones.",
  Attachments: "Files on tasks and their comments: uploaded as raw bytes, downloaded as attachments.",
  Labels: "The workspace's labels, attached to tasks and projects.",
  Search: "Full-text search over the workspace's tasks, projects and milestones.",
  Batch: "Several GETs in one call, each with the caller's credential and the rules of the direct call.",
  Fields: "Built-in fields and the workspace's custom field definitions, whose values tasks and projects carry.",
  Events: "What changed, when and by whom: the workspace's event stream in commit order, and a record's history.",
  Webhooks: "Where the workspace's events are POSTed as they happen, signed per Standard Webhooks; their deliveries.",
  Imports: "An export too large for one request, sent in parts and imported in one transaction.",
  System: "Health, this document, its interactive reference, and development-only routes.",
};

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
  app.use("*", ifMatch(app));
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

  app.route("/", systemRoutes);
  app.route("/", benchRoutes);
  app.route("/", signupRoutes);
  app.route("/", loginRoutes);
  app.route("/", deviceRoutes);
  app.route("/", meRoutes);
  app.route("/", userRoutes);
  app.route("/", workspaceRoutes);
  app.route("/", inviteRoutes);
  app.route("/", agentRoutes);
  app.route("/", apiKeyRoutes);
  app.route("/", labelRoutes);
  app.route("/", fieldRoutes);
  app.route("/", teamRoutes);
  app.route("/", teamMemberRoutes);
  app.route("/", taskRoutes);
  app.route("/", taskRelationRoutes);
  app.route("/", attachmentRoutes);
  app.route("/", projectRoutes);
  app.route("/", milestoneRoutes);
  app.route("/", eventRoutes);
  app.route("/", commentRoutes);
  app.route("/", webhookRoutes);
  app.route("/", searchRoutes);
  app.route("/", transferRoutes);
  app.route("/", importRoutes);
  app.route("/", oauthRoutes);
  app.route("/", mcpRoutes);
  app.route("/", batchRoutes(app));

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
        tags: TAGS,
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
  app.onError(checksInOrder(app, errorResponse));
  return app;
}

export const app = buildApp();
