// `/docs`: the interactive reference (Swagger UI), served by the Worker itself from the pinned `swagger-ui-dist`
// package, so it works offline and never loads a script from a CDN. The two files are Text modules (wrangler.toml
// `rules`), bundled with the Worker.
import { Hono } from "hono";
import css from "swagger-ui-dist/swagger-ui.css";
import bundle from "swagger-ui-dist/swagger-ui-bundle.js";
import type { Env } from "../../env";

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Project Management API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-openapi-url="/openapi.json"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;

// The initialiser is a file of its own, so the page's CSP needs no 'unsafe-inline' script.
const init = `const root = document.getElementById("swagger-ui");
window.ui = SwaggerUIBundle({ url: root.dataset.openapiUrl, dom_id: "#swagger-ui", deepLinking: true });`;

const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'";
// The assets are immutable for a given package version; the page itself is cheap to revalidate.
const ASSET_CACHE = "public, max-age=86400";

export const docsRoutes = new Hono<{ Bindings: Env }>()
  .get("/docs", (c) => {
    c.header("content-security-policy", CSP);
    return c.html(page);
  })
  .get("/docs/swagger-ui.css", (c) => c.body(css, 200, { "content-type": "text/css; charset=utf-8", "cache-control": ASSET_CACHE }))
  .get("/docs/swagger-ui-bundle.js", (c) =>
    c.body(bundle, 200, { "content-type": "text/javascript; charset=utf-8", "cache-control": ASSET_CACHE }),
  )
  .get("/docs/init.js", (c) => c.body(init, 200, { "content-type": "text/javascript; charset=utf-8", "cache-control": ASSET_CACHE }));
