import type { TimingVariables } from "hono/timing";
import type { RequestDb } from "../db/client";
import type { Env } from "../env";
import type { SettledOutcome, SettledWrite } from "./outcome";

/** What every request carries. Who is calling is added by the auth middleware a route declares (src/auth). */
export interface Vars extends TimingVariables {
  requestId: string;
  rdb: RequestDb;
  /**
   * Settles this request and gives what `write` answers (src/http/outcome.ts, the one rule), for a route that answers a
   * lost write its own way: an MCP tool (src/mcp/routes.ts). Set by src/middleware/settle-asked.
   */
  settleWrite: (write: SettledWrite) => Promise<SettledOutcome>;
}

export type AppEnv = { Bindings: Env; Variables: Vars };
