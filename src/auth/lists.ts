import type { Context } from "hono";
import { type ListParams, type ListSpec, parseListParams } from "../http/list";
import { credentialScope } from "./credential";
import type { CredentialEnv } from "./middleware";

/** The list parameters of this request, with cursors bound to the caller's credential (and so workspace). */
export function listParams(c: Context<CredentialEnv>, spec: ListSpec): Promise<ListParams> {
  return parseListParams(new URL(c.req.url).searchParams, spec, {
    scope: credentialScope(c.get("credential")),
    secret: c.env.CURSOR_SECRET,
  });
}
