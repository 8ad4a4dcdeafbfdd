// The app's documented operations, read from its OpenAPI registry: which template a path is, and whether it requires a
// credential (the order of checks asks).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context";

/** The built app (passed in by app.ts: nothing below it imports the app). */
export type AppHandle = Pick<OpenAPIHono<AppEnv>, "router" | "getPath" | "openAPIRegistry">;

const escapeRegExp = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&");

/** A documented operation: its method, its path template, and whether it requires a credential. */
export interface DocumentedRoute {
  method: string;
  path: string;
  pattern: RegExp;
  secured: boolean;
}

const documented = new WeakMap<AppHandle, DocumentedRoute[]>();
/** The app's documented operations (read once from its OpenAPI registry). */
export function documentedRoutes(app: AppHandle): DocumentedRoute[] {
  let routes = documented.get(app);
  if (!routes) {
    routes = app.openAPIRegistry.definitions.flatMap((d) =>
      d.type === "route"
        ? [
            {
              method: d.route.method.toUpperCase(),
              path: d.route.path,
              pattern: new RegExp(`^${escapeRegExp(d.route.path).replace(/\{[^}]+\}/g, "[^/]+")}$`),
              secured: Boolean(d.route.security?.length),
            },
          ]
        : [],
    );
    documented.set(app, routes);
  }
  return routes;
}

/** The documented operation `method` `pathname` is, if any. */
export const documentedRoute = (app: AppHandle, method: string, pathname: string) =>
  documentedRoutes(app).find((r) => r.method === method && r.pattern.test(pathname));
