import { security } from "../http/openapi";
import { requireAuth, requireCredential } from "./middleware";

/** Common part of every authenticated route definition: its tag, its security schemes and the auth check. */
export const authed = (tag: string) => ({ tags: [tag], security, middleware: requireAuth });

/**
 * The same for a route whose query authenticates itself (gatedRead, gatedList, gatedWrite): only the
 * credential is checked up front, so the whole request can be one round trip.
 */
export const selfAuthed = (tag: string) => ({ tags: [tag], security, middleware: requireCredential });

/** A public route (no credential): the document says so with an empty security list. */
export const publicRoute = (tag: string) => ({ tags: [tag], security: [] as Array<Record<string, string[]>> });
