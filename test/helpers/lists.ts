import { expect } from "vitest";
import { get } from "./api";

/** Walks every page of a list (`path` may carry filters/sorts) and returns all items, asserting the envelope. */
export async function walk(path: string, key: string, apiKey: string, limit = 7, maxPages = 1000): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const sep = path.includes("?") ? "&" : "?";
    const res: { status: number; body: any } = await get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, apiKey);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.pagination.limit).toBe(limit);
    expect(res.body[key].length).toBeLessThanOrEqual(limit);
    items.push(...res.body[key]);
    cursor = res.body.pagination.nextCursor;
    if (cursor === null) return items;
  }
  throw new Error("too many pages");
}
