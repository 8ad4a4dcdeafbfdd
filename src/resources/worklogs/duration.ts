// The one duration parser (docs/api.md, "Time tracking"): text as people write time in trackers, `1h 30m`, `1h30m`,
// `45m`, `2d`, `1w 2d`, `1.5h`, `90s`. A working day is 8 hours and a week 5 days (Jira's defaults), so `2d` is 16 hours.
// Whatever it does not read is refused (null), never guessed: a bare number has no unit.

const UNIT_SECONDS: Record<string, number> = { w: 5 * 8 * 3600, d: 8 * 3600, h: 3600, m: 60, s: 1 };
const PART = /(\d+(?:\.\d+)?)\s*([wdhms])/giy;
const ORDER = "wdhms";

/** What a duration text must look like, for error messages. */
export const DURATION_FORMS = "a duration such as `1h 30m`, `45m` or `2d` (units w, d = 8h, h, m, s; each once, largest first)";

/** Seconds of a duration text (rounded to the second), or null when it is not one or is not positive. */
export function parseDuration(text: string): number | null {
  const value = text.trim();
  if (value === "" || value.length > 64) return null;
  let seconds = 0;
  let at = 0;
  let last = -1;
  while (at < value.length) {
    PART.lastIndex = at;
    const m = PART.exec(value);
    if (!m) return null;
    const unit = ORDER.indexOf(m[2].toLowerCase());
    // Each unit once, the largest first (`30m 1h` is a typo more often than not).
    if (unit <= last) return null;
    last = unit;
    seconds += Number(m[1]) * UNIT_SECONDS[ORDER[unit]];
    at = PART.lastIndex;
    while (value[at] === " ") at++;
  }
  const rounded = Math.round(seconds);
  return rounded > 0 ? rounded : null;
}
