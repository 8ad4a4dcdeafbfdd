// The front Worker's cache key (src/front/cache-key.ts): an entry is found only by the credential that stored it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { credentialHash, entryKey, writeMarkerKey } from "../../src/front/cache-key";

const get = (url: string, headers: Record<string, string> = {}) => new Request(url, { headers });

describe("edge cache key", () => {
  it("holds the URL and differs by credential, by credential header and by Accept", async () => {
    const a = await entryKey(get("https://api.example/tasks/ENG-1?fields=id", { "svc-api-key": "pmk_a" }));
    expect(a).toMatch(/^https:\/\/api\.example\/\.pm-edge\/entry\/[0-9a-f]{64}\/[0-9a-f]{16}\/tasks\/ENG-1\?fields=id$/);
    expect(a).not.toContain("pmk_a"); // the credential itself is never part of the key
    const keys = await Promise.all([
      entryKey(get("https://api.example/tasks/ENG-1?fields=id", { "svc-api-key": "pmk_b" })),
      entryKey(get("https://api.example/tasks/ENG-1?fields=id", { authorization: "pmk_a" })),
      entryKey(get("https://api.example/tasks/ENG-1?fields=id", { "svc-api-key": "pmk_a", authorization: "Bearer x" })),
      entryKey(get("https://api.example/tasks/ENG-1?fields=id", { "svc-api-key": "pmk_a", cookie: "s=1" })),
      entryKey(get("https://api.example/tasks/ENG-1?fields=id", { "svc-api-key": "pmk_a", accept: "text/event-stream" })),
      entryKey(get("https://api.example/tasks/ENG-1", { "svc-api-key": "pmk_a" })),
      entryKey(get("https://api.example/tasks/ENG-1?fields=id")),
    ]);
    expect(new Set([a, ...keys]).size).toBe(keys.length + 1);
    // The same request, the same key (headers the answer does not depend on are not part of it).
    expect(await entryKey(get("https://api.example/tasks/ENG-1?fields=id", { "svc-api-key": "pmk_a", "x-request-id": "r" }))).toBe(a);
  });

  it("two different credential header sets never share a fingerprint", async () => {
    const headerSet = fc.record(
      { "svc-api-key": fc.string({ maxLength: 8 }), authorization: fc.string({ maxLength: 8 }), cookie: fc.string({ maxLength: 4 }) },
      { requiredKeys: [] },
    );
    const clean = (h: Record<string, string>) =>
      Object.fromEntries(Object.entries(h).map(([k, v]) => [k, v.trim().replace(/[^\x21-\x7e ]/g, "")]));
    await fc.assert(
      fc.asyncProperty(headerSet, headerSet, async (x, y) => {
        const [hx, hy] = [new Headers(clean(x)), new Headers(clean(y))];
        const same = ["svc-api-key", "authorization", "cookie"].every((h) => hx.get(h) === hy.get(h));
        return (await credentialHash(hx)) === (await credentialHash(hy)) ? same : !same;
      }),
    );
  });

  it("write markers are per origin and per workspace", () => {
    expect(writeMarkerKey("https://api.example/tasks?x=1", "wksp_1")).toBe("https://api.example/.pm-edge/write/wksp_1");
    expect(writeMarkerKey("https://api.example/", "*")).toBe("https://api.example/.pm-edge/write/*");
  });
});
