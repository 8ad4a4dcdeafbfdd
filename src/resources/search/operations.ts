import type { Caller } from "../../auth/caller";
import { searchCursor } from "./cursor";
import { searchRows } from "./queries";
import type { SearchType } from "./schema";

export interface SearchParams {
  q: string;
  types: SearchType[];
  limit: number;
  cursor?: string;
}

/**
 * GET /search: one page of results, for the REST route and the MCP tool alike; the search statement is scoped by the
 * caller's workspace as SQL, so it authenticates itself (an empty page asks once more: 401 rather than no results).
 */
export async function search(caller: Caller, { q, types, limit, cursor }: SearchParams) {
  const pages = searchCursor(caller.cursorKey, q, types);
  const after = cursor === undefined ? undefined : await pages.decode(cursor);
  const input = { q, types, limit: limit + 1, after };
  const rows = await caller.list((actor) => searchRows(caller.db, actor, input));
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    results: page.map((r) => ({
      type: r.type,
      id: r.id,
      ...(r.reference === null ? {} : { reference: r.reference }),
      title: r.title,
      snippet: r.snippet,
      score: Number(r.score),
    })),
    pagination: { limit, nextCursor: rows.length > limit && last ? await pages.encode(last) : null },
  };
}
