// A record's GET answer as one function: `{<key>: record}` narrowed by `fields`. The route answers with it, and If-Match
// and the order of checks call the same function to read the record (never a GET through the app), so their ETag and
// their 404 are the route's own.
import { type FieldSelection, type FieldShape, parseFields, projectFields } from "../store/list";

/** A resource's one-record read, as its GET answers it: the caller, the id (or reference) and the raw `fields`. */
export type RecordReader<C> = (caller: C, id: string, fields?: string) => Promise<Record<string, unknown>>;

/** The GET answer of `get`, the resource's read operation, under `key`. */
export function recordAnswer<K extends string, C, T>(
  key: K,
  shape: FieldShape,
  get: (caller: C, id: string, fields: FieldSelection | null) => Promise<T>,
) {
  return async (caller: C, id: string, fields?: string): Promise<Record<K, Partial<T>>> => {
    const selection = parseFields(fields, shape);
    return { [key]: projectFields(await get(caller, id, selection), selection) } as Record<K, Partial<T>>;
  };
}
