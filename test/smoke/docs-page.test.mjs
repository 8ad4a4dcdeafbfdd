// The /docs reference in a real browser, as `npm start` serves it (the front Worker on the public port, as in
// production): the API Worker's page, the UI's two large files from the front Worker's static assets
// (workers/front/public), nothing from a CDN, and the operations drawn from the served document.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, launch } from "./lib/browser.mjs";
import { STARTUP_MS, sharedStack } from "./lib/stack.mjs";

let stack;
let browser;

beforeAll(async () => {
  stack = await sharedStack();
  if (chromiumPath()) browser = await launch();
}, STARTUP_MS + 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("/docs under npm start", () => {
  it("serves the page and every file it names from this origin, the UI's files cached for a day", async () => {
    const page = await fetch(`${stack.base}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    const names = html.match(/(?:src|href)="(\/[^"]*)"/g).map((m) => m.split('"')[1]);
    expect(names).toEqual(["/docs/swagger-ui.css", "/docs/swagger-ui-bundle.js", "/docs/init.js"]);
    for (const name of names) {
      const res = await fetch(`${stack.base}${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get("cache-control"), name).toBe("public, max-age=86400");
      expect(res.headers.get("content-type"), name).toMatch(name.endsWith(".css") ? /^text\/css/ : /^text\/javascript/);
      expect((await res.text()).length, name).toBeGreaterThan(0);
    }
    expect(await (await fetch(`${stack.base}/docs/swagger-ui-bundle.js`)).text()).toContain("SwaggerUIBundle");
    // The assets' own settings are not served.
    expect((await fetch(`${stack.base}/_headers`)).status).toBe(404);
  });

  it.skipIf(!chromiumPath())(
    "draws the served document in Chromium, every file loaded, with no error",
    async () => {
      const { page } = browser;
      await page.goto(`${stack.base}/docs`);
      const doc = (await stack.call("GET", "/openapi.json")).body;
      // Swagger UI draws after it has fetched the document: its title, then the first tag's operations.
      const drawn = await page.evaluate(`new Promise((resolve) => {
      const t0 = Date.now();
      const look = () => {
        const title = document.querySelector(".info .title")?.innerText ?? "";
        const operations = document.querySelectorAll(".opblock").length;
        if (operations > 0 || Date.now() - t0 > 20000) resolve({ title, operations }); else setTimeout(look, 100);
      };
      look();
    })`);
      expect(drawn.title).toContain(doc.info.title);
      expect(drawn.operations).toBeGreaterThan(0);
      // In the order they finished loading, which varies: compared as a set.
      const loaded = await page.evaluate(
        `performance.getEntriesByType("resource").map((e) => [new URL(e.name).pathname, e.responseStatus])`,
      );
      expect(loaded.sort()).toEqual([
        ["/docs/init.js", 200],
        ["/docs/swagger-ui-bundle.js", 200],
        ["/docs/swagger-ui.css", 200],
        ["/openapi.json", 200],
      ]);
      expect(page.consoleErrors).toEqual([]);
    },
    60_000,
  );
});
