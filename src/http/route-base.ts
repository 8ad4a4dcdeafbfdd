import { requireAuth } from "../auth/middleware";
import { security } from "./openapi";

/** Common part of every authenticated route definition: its tag, its security schemes and the auth check. */
export const authed = (tag: string) => ({ tags: [tag], security, middleware: requireAuth });
