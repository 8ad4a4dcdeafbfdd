import { createMiddleware } from "hono/factory";
import { ValidationError } from "../core/errors";
import type { AppEnv } from "./context";

/** Dotted paths of the strings (keys included) that hold a NUL character. */
function nulPaths(value: unknown, path: string, out: string[]): string[] {
  if (typeof value === "string") {
    if (value.includes("\u0000")) out.push(path || "body");
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) nulPaths(v, path ? `${path}.${i}` : String(i), out);
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const p = path ? `${path}.${k}` : k;
      if (k.includes("\u0000")) out.push(p);
      nulPaths(v, p, out);
    }
  }
  return out;
}

/**
 * PostgreSQL cannot store NUL in text, so a JSON body whose strings hold one is refused up front with a 422
 * naming the fields, instead of failing in the database. Cheap: only bodies that contain `\u0000` are parsed here.
 */
export const rejectNulCharacters = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method !== "GET" && c.req.method !== "HEAD" && /json/i.test(c.req.header("content-type") ?? "")) {
    const text = await c.req.text();
    if (text.includes("\\u0000")) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined; // malformed JSON: the validator answers 400
      }
      const paths = nulPaths(parsed, "", []);
      if (paths.length) throw new ValidationError(Object.fromEntries(paths.map((p) => [p, ["Must not contain NUL (\\u0000) characters"]])));
    }
  }
  await next();
});
