// The request's Cache-Control (RFC 9111 §5.2.1), read for one question: how old a stored answer may the caller take?
// Only `max-age` and `max-stale` open the edge cache (docs/edge.md); `no-cache` and `no-store` close it whatever else
// the header says. Pure, so the unit project tests it (test/unit/edge-directives.test.ts).

export interface RequestDirectives {
  /** `max-age=N`: the caller takes a stored answer at most N seconds old. */
  maxAge?: number;
  /** `max-stale=N`; a bare `max-stale` (any staleness) is Infinity, later capped by the server's maximum. */
  maxStale?: number;
  /** `no-cache` or `no-store`: the origin answers, always. */
  noCache: boolean;
}

/** delta-seconds (RFC 9111 §1.2.2): digits only; too large a value stands for "very old", as the RFC asks. */
function deltaSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const unquoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  if (!/^[0-9]+$/.test(unquoted)) return undefined;
  return Math.min(Number(unquoted), 2 ** 31);
}

/**
 * Directives are comma-separated, case-insensitive names with an optional `=value`. A directive that repeats keeps
 * its smallest value (the stricter reading); one with a malformed value is ignored, as if absent.
 */
export function parseRequestDirectives(header: string | null): RequestDirectives {
  const out: RequestDirectives = { noCache: false };
  if (!header) return out;
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    const value = eq < 0 ? undefined : part.slice(eq + 1).trim();
    if (name === "no-cache" || name === "no-store") out.noCache = true;
    else if (name === "max-age") {
      const n = deltaSeconds(value);
      if (n !== undefined) out.maxAge = Math.min(out.maxAge ?? n, n);
    } else if (name === "max-stale") {
      const n = value === undefined ? Number.POSITIVE_INFINITY : deltaSeconds(value);
      if (n !== undefined) out.maxStale = Math.min(out.maxStale ?? n, n);
    }
  }
  return out;
}

/**
 * The oldest stored answer the request accepts, in seconds, or null when it must go to the origin: no directive that
 * allows one, `no-cache`/`no-store`, or edge caching off (`serverMax` 0). Both directives given: the stricter one.
 * Never more than `serverMax`, which is what bounds a revoked credential at another location (docs/edge.md, revocation).
 */
export function acceptableAge(d: RequestDirectives, serverMax: number): number | null {
  if (d.noCache || !(serverMax > 0)) return null;
  const asked = Math.min(d.maxAge ?? Number.POSITIVE_INFINITY, d.maxStale ?? Number.POSITIVE_INFINITY);
  if (asked === Number.POSITIVE_INFINITY && d.maxAge === undefined && d.maxStale === undefined) return null;
  return Math.min(asked, serverMax);
}
