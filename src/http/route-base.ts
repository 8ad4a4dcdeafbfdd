import { requireAuth, requireCredential } from "../auth/middleware";
import { security } from "./openapi";

/** Common part of every authenticated route definition: its tag, its security schemes and the auth check. */
export const authed = (tag: string) => ({ tags: [tag], security, middleware: requireAuth });

/** The same for a read that authenticates inside its own query (gatedRead): one round trip in all. */
export const authedRead = (tag: string) => ({ tags: [tag], security, middleware: requireCredential });
