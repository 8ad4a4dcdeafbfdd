import { badRequest } from "../../core/errors";
import { type CursorKey, decodeCursor, encodeCursor } from "../../store/list";
import type { SearchType } from "./schema";

/** Search cursors: signed like every list's, bound to the credential and to this exact query; keyset (score, id). */
export function searchCursor(key: CursorKey, q: string, types: SearchType[]) {
  const signature = JSON.stringify([q, [...types].sort()]);
  return {
    encode: (row: { score: string; id: string }) => encodeCursor({ r: "search", s: signature, v: [row.score], i: row.id }, key),
    async decode(raw: string): Promise<{ score: string; id: string }> {
      const p = await decodeCursor(raw, key);
      if (p.r !== "search" || p.s !== signature || typeof p.v[0] !== "string") throw badRequest("Cursor does not belong to this search");
      return { score: p.v[0], id: p.i };
    },
  };
}
