import { createRoute, z } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { etag, RETAINED_304_HEADERS } from "hono/etag";
import { requestId } from "hono/request-id";
import { AppError } from "./core/errors";
import { TAGS } from "./core/resources";
import { errorResponse } from "./http/error-mapper";
import { methodNotAllowedOr404 } from "./http/method-not-allowed";
import { eventRenderingOf, moduleRoutes, type ResourceModule } from "./http/module";
import { finishDocument, jsonResponse, registerOpenApiComponents } from "./http/openapi";
import { conditionalTable, declaredRoutes, routePolicy, routeScopes } from "./http/policy";
import { readsOf } from "./http/read-route";
import { requestDb } from "./http/request-db";
import { publicRoute } from "./http/route-base";
import { documentQueries } from "./http/route-schemas";
import { newRouter } from "./http/router";
import { settlingOutcome } from "./http/settled-write";
import { publicBaseUrl } from "./http/urls";
import { mcpModule } from "./mcp/mcp-module";
import { rejectUnkeepableText } from "./middleware/body-guard";
import { edgeWorkspace } from "./middleware/edge-workspace";
import { eventContext } from "./middleware/event-context";
import { fileRelay } from "./middleware/file-relay";
import { ifMatch } from "./middleware/if-match";
import { oauthErrors } from "./middleware/oauth-errors";
import { checksInOrder } from "./middleware/order-of-checks";
import { rateLimit } from "./middleware/rate-limit";
import { safeRetries } from "./middleware/safe-retries";
import { settleAsked } from "./middleware/settle-asked";
import { webhookRelay } from "./middleware/webhook-relay";
import { MODULES } from "./resources";
import { docsRoutes } from "./resources/system/docs";

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
      "`Location`; GETs (and PATCH answers) carry a weak `ETag` and answer 304 to a matching `If-None-Match`; PATCH and DELETE take it back in `If-Match` (412 when stale, nothing written); every POST takes an `Idempotency-Key` (a repeat within 24 h gets the first answer); answers carry `RateLimit-*` headers (429 with `Retry-After` over the limit); bodies are limited to 1 MiB (32 MiB on the import routes, 25 MiB on file uploads);",
      "every response carries `x-request-id` and `Server-Timing`. A method a path does not serve is 405 `METHOD_NOT_ALLOWED` with",
      "`Allow` listing the methods it does (an unknown path is 404).",
    ].join("\n"),
  },
} as const;

/** The document's tags: the register's, as far as a module uses them, then those modules bring of their own. */
const documentTags = (modules: readonly ResourceModule[]): Record<string, string> => ({
  ...Object.fromEntries(Object.entries(TAGS).filter(([tag]) => modules.some((m) => m.resource.tag === tag))),
  ...Object.fromEntries(modules.flatMap((m) => (m.tagWords ? [[m.resource.tag, m.tagWords]] : []))),
});

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

/**
 * The app serving `modules` (src/resources/index.ts: the service's resources, in their order), then MCP with their
 * tools. A test builds one with a resource of its own (test/resources/module/).
 */
export function buildApp(modules: readonly ResourceModule[] = MODULES) {
  const app = newRouter();
  const mounted = [...modules, mcpModule(modules)];

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
        "PM-Position",
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
  // By the matched route's body (src/http/policy.ts): an upload streams its bytes to storage and its route checks its
  // own, larger limit; an import document has its own.
  app.use("*", (c, next) => {
    const { body } = routePolicy(c);
    if (body === "upload") return next();
    return (body === "import" ? importLimit : defaultLimit)(c, next);
  });
  app.use("*", rejectUnkeepableText);
  app.use("*", rateLimit);
  app.use("*", eventContext);
  // The front Worker asks after a write the API Worker dropped: settled, never run again.
  app.use("*", settleAsked(app));
  // After the response of a request that wrote: its events' webhook deliveries go to the queue (src/webhooks/relay.ts),
  // rendered with the modules' field maps (an app whose modules leave an event type without one is not built).
  app.use("*", webhookRelay(eventRenderingOf(modules)));
  // After a delete: the stored files it removed go to the files queue (src/files/deletions.ts).
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
  // Not where the route says so (an export: each is a new document, and hashing a streamed one would hold all of it).
  app.use("*", (c, next) => (routePolicy(c).etag === false ? next() : etags(c, next)));
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

  // Each module's routes, in the list's order; what they do not declare comes from its register entry (src/http/policy.ts).
  // Made from the resource modules (MCP is the app's own): the service's app renders with the one rendering of MODULES
  // its tools and the cron use too.
  for (const module of mounted) for (const routes of moduleRoutes(module, app, modules)) app.route("/", routes);
  const routeAt = declaredRoutes(app.routes);
  const conditional = (route: NonNullable<ReturnType<typeof routeAt>>) => conditionalTable(route) !== undefined;
  for (const { method, path } of app.routes) {
    const route = routeAt(method, path);
    if (!route) continue;
    // A write with no scope would go out unscoped, a conditional write without its GET's read would silently lose its
    // If-Match check: no app is built so.
    if (route.secured) routeScopes(route);
    if (conditional(route) && !readsOf(app).has(path)) throw new Error(`${method} ${path} is conditional but GET ${path} has no read`);
  }

  registerOpenApiComponents(app.openAPIRegistry);
  // Generating the document costs ~20 ms of CPU and it changes only with the base URL and the dev switches: kept per
  // combination (a handful; cleared when full, as the base URL may come from the request's Host).
  const documents = new Map<string, ReturnType<typeof finishDocument>>();
  const rulesOf = (method: string, path: string) => {
    const route = routeAt(method, path);
    return { policy: route?.policy ?? {}, conditional: Boolean(route && conditional(route)) };
  };
  const scopesOf = (method: string, path: string) => {
    const route = routeAt(method, path);
    return route ? routeScopes(route) : null;
  };
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
      documentQueries(app.openAPIRegistry);
      doc = finishDocument(app.getOpenAPI31Document(DOCUMENT), {
        serverUrl,
        tags: documentTags(mounted),
        switchedPaths,
        rulesOf,
        scopesOf,
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
  // A lost connection after a write went out is settled first (src/http/settled-write.ts); input refusals come after 401 and 404.
  app.onError(checksInOrder(app, settlingOutcome(app, errorResponse)));
  return app;
}

export const app = buildApp();
// The router builds its matcher (every route's pattern in one) on its first match: here, as the Worker loads, rather than
// in the first request it serves (docs/performance.md, "Cold start").
app.router.match("GET", "/");
