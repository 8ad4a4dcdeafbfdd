// What the sync tests share: a snapshot read and parsed, the events after a position, and a snapshot with those events
// applied as a client applies them (docs/sync.md).
import { expect } from "vitest";
import { fetchApp, get } from "../../helpers/api";

export interface Snapshot {
  records: Map<string, unknown>;
  position: string | null;
}

const keyOf = (type: string, id: string) => `${type}:${id}`;

/** GET /sync/snapshot, parsed: every record by `type:id`, and the position of its last line. */
export async function snapshot(key: string, query = ""): Promise<Snapshot> {
  const res = await fetchApp(new Request(`http://api.test/sync/snapshot${query}`, { headers: { "svc-api-key": key } }));
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
  const lines = text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const last = lines.pop();
  expect(Object.keys(last)).toEqual(["position"]);
  const records = new Map<string, unknown>();
  for (const line of lines) records.set(keyOf(line.type, line.record.id), line.record);
  return { records, position: last.position };
}

/** The events after `after`, every page, as `GET /events` answers them now. */
export async function eventsAfter(key: string, after: string | null): Promise<any[]> {
  const events: any[] = [];
  let url = `/events?limit=250${after ? `&after=${after}` : ""}`;
  for (;;) {
    const res = await get(url, key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    events.push(...res.body.events);
    if (!res.body.pagination.nextCursor) return events;
    url = `/events?limit=250&cursor=${encodeURIComponent(res.body.pagination.nextCursor)}`;
  }
}

/** The snapshot's records with `events` applied in order: a record type's data upserted, a delete removing it. */
export function applied(base: Snapshot, events: any[], types: string[]): Map<string, unknown> {
  const records = new Map(base.records);
  for (const event of events) {
    if (!types.includes(event.resourceType)) continue;
    const key = keyOf(event.resourceType, event.resourceId);
    if (event.type.endsWith(".deleted")) records.delete(key);
    else records.set(key, event.data);
  }
  return records;
}
