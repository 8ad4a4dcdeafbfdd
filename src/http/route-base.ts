import { withCaller } from "./caller";
import { security } from "./openapi";

/** Common part of every protected route: its tag, its security schemes and the caller (withCaller). */
export const protectedRoute = (tag: string) => ({ tags: [tag], security, middleware: withCaller });

/** A public route (no credential): the document says so with an empty security list. */
export const publicRoute = (tag: string) => ({ tags: [tag], security: [] as Array<Record<string, string[]>> });
