import type { TimingVariables } from "hono/timing";
import type { AppError } from "../core/errors";
import type { RequestDb } from "../db/client";
import type { Env } from "../env";

/** What every request carries. Who is calling is added by the auth middleware a route declares (src/auth). */
export interface Vars extends TimingVariables {
  requestId: string;
  rdb: RequestDb;
  /**
   * Settles this request and gives what `write` answers (src/http/settled-write.ts, the one rule), for a route that answers a
   * lost write its own way: an MCP tool (src/mcp/routes.ts). Set by src/middleware/settle-asked.
   */
  settleWrite: (write: SettledWrite) => Promise<SettledOutcome>;
}

export type AppEnv = { Bindings: Env; Variables: Vars };

/** A write as the rule sees it: its REST operation (method and path template, e.g. `PATCH /tasks/{id}`) and the id its path names. */
export interface SettledWrite {
  method: string;
  route: string;
  id?: string;
}

/** What a settled write answers: the committed write's own answer (its status, body and record path), or the error saying what is known. */
export type SettledOutcome = { status: 204 } | { status: 200 | 201; body: Record<string, unknown>; location?: string } | AppError;
