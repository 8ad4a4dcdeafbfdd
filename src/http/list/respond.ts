import { projectFields } from "./fields";
import type { ListParams } from "./params";

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
