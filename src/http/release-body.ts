import type { HonoRequest } from "hono";

/**
 * Lets go of the body's text that Hono keeps after parsing it (`c.req.json()` caches the text for another read), in
 * handlers of large bodies (imports, up to 32 MiB): they read only the validated value, and the text would otherwise
 * hold the document's size again (twice it, as UTF-16) for the rest of the request.
 */
export function releaseBodyText(req: HonoRequest): void {
  req.bodyCache = {};
}
