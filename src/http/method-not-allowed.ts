import type { Context } from "hono";
import type { Router } from "hono/router";
import type { RouterRoute } from "hono/types";
import { AppError } from "../core/errors";
import { errorResponse } from "./error-mapper";

/** What of the app this needs: its routes and the router that matches them. */
interface App {
  routes: RouterRoute[];
  router: Router<[unknown, RouterRoute]>;
}

// `Allow` lists them in this order; HEAD follows GET (Hono answers HEAD with the GET route).
const ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * The methods `app` serves on `path`, matched by the app's own router (so exactly the routes that would answer);
 * middleware (method ALL) serves none by itself. OPTIONS is added to a served path: the CORS middleware answers it.
 * Empty when no route has the path.
 */
export function allowedMethods(app: App, path: string): string[] {
  const methods = new Set(app.routes.map((route) => route.method).filter((method) => method !== "ALL"));
  const allowed = new Set<string>();
  for (const method of methods) {
    const [handlers] = app.router.match(method, path);
    if (handlers.some(([[, route]]) => route.method === method)) allowed.add(method);
  }
  if (allowed.size === 0) return [];
  if (allowed.has("GET")) allowed.add("HEAD");
  allowed.add("OPTIONS");
  return [...allowed].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
}

/**
 * The app's notFound handler: a path some route serves, asked with another method, is 405 METHOD_NOT_ALLOWED with
 * `Allow` (RFC 9110 §15.5.6) and the same methods in `details.allowed`; any other path stays 404.
 */
export function methodNotAllowedOr404(app: App) {
  return (c: Context) => {
    const allowed = allowedMethods(app, c.req.path);
    if (allowed.length === 0) return errorResponse(new AppError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`), c);
    c.header("Allow", allowed.join(", "));
    return errorResponse(new AppError("METHOD_NOT_ALLOWED", `${c.req.method} is not allowed on ${c.req.path}`, { allowed }), c);
  };
}
