import { describe, expect, it } from "vitest";
import { fetchApp } from "./helpers/api";

// The UI's two large files are the front Worker's static assets: test/smoke/docs-page.test.mjs loads the whole page
// under `npm start`, in Chromium too.
describe("/docs", () => {
  it("serves the reference page and its initialiser from the Worker, with no CDN; the UI's files are not in its script", async () => {
    const page = await fetchApp(new Request("http://api.test/docs"));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect(html.match(/(?:src|href)="(\/[^"]*)"/g)!.map((m) => m.split('"')[1])).toEqual([
      "/docs/swagger-ui.css",
      "/docs/swagger-ui-bundle.js",
      "/docs/init.js",
    ]);
    const init = await fetchApp(new Request("http://api.test/docs/init.js"));
    expect(init.status).toBe(200);
    expect(await init.text()).toContain("SwaggerUIBundle({");
    expect((await fetchApp(new Request("http://api.test/docs/swagger-ui-bundle.js"))).status).toBe(404);
  });
});
