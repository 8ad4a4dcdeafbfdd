import { expect } from "vitest";
import { get } from "./api";

/** Walks every page of a list (`path` may carry filters/sorts) and returns all items, asserting the envelope. */
export async function walk(path: string, key: string, apiKey: string, limit = 7, maxPages = 1000): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const sep = path.includes("?") ? "&" : "?";
    const res: { status: number; body: any } = await get(
      `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      apiKey,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.pagination.limit).toBe(limit);
    expect(res.body[key].length).toBeLessThanOrEqual(limit);
    items.push(...res.body[key]);
    cursor = res.body.pagination.nextCursor;
    if (cursor === null) return items;
  }
  throw new Error("too many pages");
}

/**
 * A comparator that orders list items as the list machinery does: keys in turn, nulls last in both
 * directions, ties by id in the direction of the last key. `rank` maps a field to the value it sorts by
 * (e.g. an enum's declaration order). Compare text with plain `<`, so use case-consistent ASCII test data.
 */
export function listOrder(sort: Array<[field: string, dir: "asc" | "desc"]>, rank: Record<string, (item: any) => unknown> = {}) {
  const keys = [...sort, ["id", sort[sort.length - 1][1]] as [string, "asc" | "desc"]];
  return (a: any, b: any): number => {
    for (const [field, dir] of keys) {
      const value = rank[field] ?? ((item: any) => item[field]);
      const [x, y] = [value(a), value(b)] as [any, any];
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * (dir === "asc" ? 1 : -1);
    }
    return 0;
  };
}
