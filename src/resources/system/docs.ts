// `/docs`: the interactive reference (Swagger UI). Its two large files, from the pinned `swagger-ui-dist` package, are
// the front Worker's static assets (workers/front/public/docs, links into the package), served at the caller's location
// and never part of this Worker's script (docs/performance.md, "Cold start"); nothing loads from a CDN, offline too.
// The page and its initialiser stay here, with the document they read.
import { Hono } from "hono";
import type { Env } from "../../env";

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Project Management API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-openapi-url="/openapi.json"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;

// The icon is none (a browser asks for /favicon.ico otherwise: a 404 in its console). The initialiser is a file of its
// own, so the page's CSP needs no 'unsafe-inline' script.
const init = `const root = document.getElementById("swagger-ui");
window.ui = SwaggerUIBundle({ url: root.dataset.openapiUrl, dom_id: "#swagger-ui", deepLinking: true });`;

const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'";
// As the package's files (workers/front/public/_headers): fixed for a deployed version; the page itself is revalidated.
const ASSET_CACHE = "public, max-age=86400";

export const docsRoutes = new Hono<{ Bindings: Env }>()
  .get("/docs", (c) => {
    c.header("content-security-policy", CSP);
    return c.html(page);
  })
  .get("/docs/init.js", (c) => c.body(init, 200, { "content-type": "text/javascript; charset=utf-8", "cache-control": ASSET_CACHE }));
