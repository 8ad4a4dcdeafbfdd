// The one duration parser (docs/api.md, "Time tracking"): what it reads and what it refuses.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDuration } from "../../src/resources/worklogs/duration";

describe("parseDuration", () => {
  it("reads durations as trackers write them (a day is 8 hours, a week 5 days)", () => {
    const cases: Array<[string, number]> = [
      ["1h 30m", 5400],
      ["1h30m", 5400],
      ["45m", 2700],
      ["2d", 16 * 3600],
      ["1w", 40 * 3600],
      ["1w 2d 3h 4m 5s", 40 * 3600 + 16 * 3600 + 3 * 3600 + 4 * 60 + 5],
      ["1.5h", 5400],
      ["90s", 90],
      ["  2H 5M ", 2 * 3600 + 300],
      ["1 h 30 m", 5400],
      ["0.5s", 1],
    ];
    for (const [text, seconds] of cases) expect(parseDuration(text), text).toBe(seconds);
  });

  it("refuses what it does not read, never guessing", () => {
    for (const text of [
      "",
      " ",
      "90",
      "1",
      "h",
      "1x",
      "an hour",
      "30m 1h",
      "1h 1h",
      "1h,30m",
      "-1h",
      "1e3s",
      "0h",
      "0m 0s",
      "0.1s",
      "1h-",
      `${"1".repeat(70)}s`,
    ]) {
      expect(parseDuration(text), JSON.stringify(text)).toBeNull();
    }
  });

  it("reads back what it writes, for any whole parts", () => {
    fc.assert(
      fc.property(fc.nat(9), fc.nat(9), fc.nat(23), fc.nat(59), fc.nat(59), (w, d, h, m, s) => {
        const parts = [`${w}w`, `${d}d`, `${h}h`, `${m}m`, `${s}s`].filter((p) => !p.startsWith("0"));
        const seconds = ((w * 5 + d) * 8 + h) * 3600 + m * 60 + s;
        expect(parseDuration(parts.join(" "))).toBe(seconds > 0 ? seconds : null);
      }),
    );
  });
});
