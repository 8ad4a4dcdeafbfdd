import type { Context } from "hono";
import { credentialScope } from "../../auth/credential";
import type { AppEnv } from "../context";
import { projectFields } from "./fields";
import { parseListParams, type ListParams } from "./params";
import type { ListSpec } from "./types";

/** The list parameters of this request, with cursors bound to the caller's credential (and so workspace). */
export function listParams(c: Context<AppEnv>, spec: ListSpec): Promise<ListParams> {
  return parseListParams(new URL(c.req.url).searchParams, spec, {
    scope: credentialScope(c.get("credential")),
    secret: c.env.CURSOR_SECRET,
  });
}

/** `{<plural>: [...], pagination: {limit, nextCursor}}` from the (limit+1) serialized items a service fetched. */
export async function listBody<K extends string, T extends Record<string, unknown>>(
  key: K,
  params: ListParams,
  fetched: T[],
): Promise<{ [P in K]: T[] } & { pagination: { limit: number; nextCursor: string | null } }> {
  // Typed as whole items: `fields` narrows them, and the OpenAPI document says so on every list.
  const { items, nextCursor } = await params.page(fetched);
  return {
    [key]: items.map((item) => projectFields(item, params.fields)),
    pagination: { limit: params.limit, nextCursor },
  } as any;
}
