// PLACEHOLDER until main's src/records/events.ts (the events' API JSON) is merged: the same signature, a few columns.
import { inArray } from "drizzle-orm";
import { events } from "../../drizzle/schema";
import type { Executor } from "../db/client";

export interface EventDto {
  id: string;
  type: string;
  resourceType: string;
  resourceId: string;
  reference?: string | null;
  actor?: unknown;
  changes?: Record<string, { from: unknown; to: unknown }>;
  data?: unknown;
  requestId?: string | null;
  position?: string | number;
  createdAt: string;
}

/** The events `ids` as the API answers them, by id (missing ids are absent). */
export async function eventsByIds(db: Executor, ids: string[]): Promise<Map<string, EventDto>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({
      id: events.id,
      type: events.type,
      resourceType: events.resourceType,
      resourceId: events.resourceId,
      createdAt: events.createdAt,
    })
    .from(events)
    .where(inArray(events.id, ids));
  return new Map(rows.map((r) => [r.id, { ...r, createdAt: r.createdAt.toISOString() }]));
}
