import { describe, expect, it } from "vitest";
import { fetchApp } from "./helpers/api";

describe("/docs", () => {
  it("serves the reference UI and its assets from the Worker, with no CDN", async () => {
    const page = await fetchApp(new Request("http://api.test/docs"));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    for (const src of html.match(/(?:src|href)="([^"]+)"/g)!.map((m) => m.split('"')[1])) {
      const asset = await fetchApp(new Request(`http://api.test${src}`));
      expect(asset.status, src).toBe(200);
      expect((await asset.text()).length, src).toBeGreaterThan(0);
    }
    const bundle = await (await fetchApp(new Request("http://api.test/docs/swagger-ui-bundle.js"))).text();
    expect(bundle).toContain("SwaggerUIBundle");
  });
});
