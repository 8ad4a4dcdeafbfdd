import type { TimingVariables } from "hono/timing";
import type { RequestDb } from "../db/client";
import type { Env } from "../env";

/** What every request carries. Who is calling is added by the auth middleware a route declares (src/auth). */
export interface Vars extends TimingVariables {
  requestId: string;
  rdb: RequestDb;
}

export type AppEnv = { Bindings: Env; Variables: Vars };
