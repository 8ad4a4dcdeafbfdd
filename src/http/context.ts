import type { RequestDb } from "../db/client";
import type { Env } from "../env";
import type { Credential } from "../auth/credential";
import type { Principal } from "../auth/principal";

export interface Vars {
  requestId: string;
  rdb: RequestDb;
  principal: Principal;
  credential: Credential;
}

export type AppEnv = { Bindings: Env; Variables: Vars };
