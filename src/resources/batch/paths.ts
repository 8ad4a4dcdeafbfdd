import { type AppError, badRequest } from "../../core/errors";

// Any origin does: only its path and query are kept, resolved the way the item's direct request would be.
const BASE = "http://batch.invalid";
const METHOD = /^([A-Za-z]+)\s+/;

/**
 * The path and query of one batch item, or BAD_REQUEST: only GETs (a bare path, or `GET /path`), only paths of
 * this API (no absolute URL, no `//host`, no backslash or control character, no `.`/`..` segment, raw or encoded).
 */
export function itemPath(raw: string): string | AppError {
  const method = METHOD.exec(raw);
  if (method && method[1].toUpperCase() !== "GET") return badRequest(`Only GET requests can be batched, not ${method[1].toUpperCase()}`);
  const path = method ? raw.slice(method[0].length) : raw;
  if (!path.startsWith("/") || path.startsWith("//")) return badRequest("A batch item is a path of this API starting with a single /");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused here.
  if (/[\\\u0000-\u001f\u007f\s]/.test(path))
    return badRequest("A batch item's path may not hold backslashes, spaces or control characters");
  const url = new URL(path, BASE);
  const segments = path
    .split("?")[0]
    .split("/")
    .map((s) => s.replace(/%2e/gi, "."));
  if (url.origin !== BASE || segments.some((s) => s === "." || s === ".."))
    return badRequest("A batch item's path may not leave its place with . or ..");
  return url.pathname + url.search;
}
