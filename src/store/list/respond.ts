import { projectFields } from "./field-selection";
import type { ListParams } from "./params";

/** `{<plural>: [...], pagination: {limit, nextCursor}}` from the (limit+1) serialized items a service fetched. */
export async function listBody<K extends string, T extends Record<string, unknown>>(
  key: K,
  params: ListParams,
  fetched: T[],
): Promise<{ [P in K]: Partial<T>[] } & { pagination: { limit: number; nextCursor: string | null } }> {
  // Items narrowed by `fields`: every key is optional in the list schemas too (paginated).
  const { items, nextCursor } = await params.page(fetched);
  const body = { [key]: items.map((item) => projectFields(item, params.fields)) } as { [P in K]: Partial<T>[] };
  return { ...body, pagination: { limit: params.limit, nextCursor } };
}
