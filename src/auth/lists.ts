import type { Env } from "../env";
import { type ListParams, type ListSpec, parseListParams } from "../http/list";
import { type Credential, credentialScope } from "./credential";

/** What listParams reads of a request: any route that holds a credential (selfAuthed or authed). */
interface ListRequest {
  req: { url: string };
  env: Pick<Env, "CURSOR_SECRET">;
  get(key: "credential"): Credential;
}

/** The list parameters of this request, with cursors bound to the caller's credential (and so workspace). */
export function listParams(c: ListRequest, spec: ListSpec): Promise<ListParams> {
  return parseListParams(new URL(c.req.url).searchParams, spec, {
    scope: credentialScope(c.get("credential")),
    secret: c.env.CURSOR_SECRET,
  });
}
