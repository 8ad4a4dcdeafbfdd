import type { CursorKey } from "../../http/list";
import { searchCursor } from "./cursor";
import type { SearchInput, SearchRow } from "./queries";
import type { SearchType } from "./schema";

export interface SearchParams {
  q: string;
  types: SearchType[];
  limit: number;
  cursor?: string;
}

/**
 * One page of search results as GET /search answers it, for the REST route and the MCP tool alike. `fetchRows`
 * runs the search statement in the caller's workspace (each caller authenticates its own way).
 */
export async function searchPage(
  key: CursorKey,
  { q, types, limit, cursor }: SearchParams,
  fetchRows: (input: SearchInput) => Promise<SearchRow[]>,
) {
  const pages = searchCursor(key, q, types);
  const after = cursor === undefined ? undefined : await pages.decode(cursor);
  const rows = await fetchRows({ q, types, limit: limit + 1, after });
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
