// The request Cache-Control parser of the front Worker (src/front/directives.ts): what age of stored answer a GET
// accepts (docs/edge.md, RFC 9111 §5.2.1).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { acceptableAge, parseRequestDirectives } from "../../src/front/directives";

const limit = (header: string | null, max = 60) => acceptableAge(parseRequestDirectives(header), max);

describe("request Cache-Control", () => {
  it("max-age and max-stale open the cache, capped by the server's maximum", () => {
    expect(limit("max-age=30")).toBe(30);
    expect(limit("max-age=600")).toBe(60);
    expect(limit("max-stale=5")).toBe(5);
    expect(limit("max-stale")).toBe(60); // any staleness: the server's maximum
    expect(limit("max-age=0")).toBe(0);
    expect(limit('max-age="12"')).toBe(12); // a quoted value, which RFC 9111 asks recipients to accept
    expect(limit("MAX-AGE = 7")).toBe(7);
  });

  it("no directive, no-cache or no-store go to the origin; so does everything when caching is off", () => {
    expect(limit(null)).toBeNull();
    expect(limit("")).toBeNull();
    expect(limit("min-fresh=10, only-if-cached")).toBeNull();
    expect(limit("max-age=30, no-cache")).toBeNull();
    expect(limit("no-store, max-stale=30")).toBeNull();
    expect(limit("max-age=30", 0)).toBeNull();
  });

  it("malformed values are ignored; repeats and both directives keep the stricter", () => {
    expect(limit("max-age=abc")).toBeNull();
    expect(limit("max-age=-5")).toBeNull();
    expect(limit("max-age=1.5")).toBeNull();
    expect(limit("max-age=abc, max-stale=9")).toBe(9);
    expect(limit("max-age=20, max-age=10")).toBe(10);
    expect(limit("max-age=20, max-stale=3")).toBe(3);
    expect(limit("max-age=99999999999999999999")).toBe(60);
  });

  it("never more than the server's maximum nor the caller's smallest value, whatever the header", () => {
    const directive = fc.oneof(
      fc.nat(1000).map((n) => `max-age=${n}`),
      fc.nat(1000).map((n) => `max-stale=${n}`),
      fc.constantFrom("max-stale", "no-transform", "min-fresh=3", "max-age=x", " ", "foo=bar"),
    );
    fc.assert(
      fc.property(fc.array(directive, { maxLength: 6 }), fc.nat(120), (parts, max) => {
        const got = limit(parts.join(", "), max);
        const asked = parts.flatMap((p) => /^max-(?:age|stale)=(\d+)$/.exec(p)?.[1] ?? []).map(Number);
        const open = asked.length > 0 || parts.includes("max-stale");
        if (!open || max === 0) return got === null;
        return got !== null && got <= max && asked.every((n) => got <= n);
      }),
    );
  });
});
