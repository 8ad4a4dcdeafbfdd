// The Event record (docs/events.md): a row the database's triggers wrote with a change, rendered for the API. The
// triggers keep the record's row as stored (before and after); its fields here come from the record type's own field
// map, which the module writing its events declares (`eventRecords`), so `data` and `changes` use the names and formats
// of the record's answer, and a new field of a record (or a new record type) shows up in its events without a line here.
import { z } from "@hono/zod-openapi";
import { getTableName, inArray, is, type SQL, sql } from "drizzle-orm";
import { PgColumn } from "drizzle-orm/pg-core";
import { events, users } from "../../drizzle/schema";
import { iso } from "../core/dates";
import { EVENT_SOURCES } from "../core/resources";
import type { Executor } from "../db/client";
import { typeIdAt } from "../ids";
import { UserSummarySchema } from "../resources/users/record";
import type { Field } from "../store/field-map";
import { orNull } from "../store/schemas";
import { eventFilterFields } from "./event-filter";
import { RESOURCE_TYPES, type ResourceType } from "./event-types";

/**
 * The field map each resource type's events render with: its record's, declared by the module whose register entry
 * writes them (`eventRecords`, src/http/module.ts), and read over the tables of its stored image (the register's).
 */
export type EventRecords = Readonly<Record<ResourceType, Readonly<Record<string, Field>>>>;

/** `fooBar` → `foo_bar`: how a record's field names its stored column (pm_event_filter reads an image by it). */
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The fields an update's `changes` may name that a filter's `changed` takes: every record's fields stored as a column
 * of that name (the database compares the images by it), and `labelIds`.
 */
function changeableFields(records: EventRecords): string[] {
  return [
    ...new Set([
      ...Object.values(records).flatMap((fields) =>
        Object.entries(fields)
          .filter(([name, field]) => !field.hidden && is(field.value, PgColumn) && (field.value as PgColumn).name === snake(name))
          .map(([name]) => name)
          .filter((name) => !["id", "createdAt", "updatedAt"].includes(name)),
      ),
      "labelIds",
    ]),
  ].sort();
}

const Change = z.object({ from: z.unknown(), to: z.unknown() }).openapi("EventChange");
const PersonActor = z.object({
  ...UserSummarySchema.shape,
  type: z.enum(["HUMAN", "AGENT"]),
  via: z.enum(["api_key", "jwt", "mcp", "import", "sign_up", "oauth"]).nullable(),
});
/** The service's own writes (a cycle's rollover): no user. */
const SystemActor = z.object({
  id: z.string().nullable().openapi({ description: "Always null" }),
  name: z.literal("system"),
  type: z.literal("SYSTEM"),
  via: z.literal("system"),
});
export const EventActor = z.union([PersonActor, SystemActor]).openapi("EventActor");
const SYSTEM_ACTOR = { id: null, name: "system", type: "SYSTEM", via: "system" } as const;

export const Event = z
  .object({
    id: z.string().openapi({ example: "evt_01jz8x4q0be0sv3c5kq9v1y2ab" }),
    type: z.string().openapi({ example: "task.updated" }),
    resourceType: z.enum(RESOURCE_TYPES),
    resourceId: z.string(),
    reference: z.string().nullable().openapi({ description: "`ENG-12` / `ENG-P3` for tasks and projects; null otherwise" }),
    actor: orNull(EventActor).openapi({ description: "Who made the change and how; null when no user did (a sign-up's first rows)" }),
    changes: z.record(z.string(), Change).optional().openapi({
      description:
        "Updates only: each changed field of the record's answer as `{from, to}`; label changes as `labelIds`, custom fields as `customFields.<key>`",
    }),
    data: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: "The record's own fields after the change (for a delete, as it was); embedded objects are left out" }),
    requestId: z.string().nullable(),
    position: z.number().int().openapi({ description: "Grows in commit order; the stream's order" }),
    createdAt: z.string(),
  })
  .openapi("Event");
export type EventDto = z.infer<typeof Event>;

/** An events row as the read selects it. */
export interface EventRow {
  id: string;
  type: string;
  resource_type: ResourceType;
  resource_id: string;
  reference: string | null;
  position: string | number;
  created_at: string;
  request_id: string | null;
  via: z.infer<typeof PersonActor>["via"] | "system";
  actor: Omit<z.infer<typeof PersonActor>, "via"> | null;
  old_image: Record<string, unknown> | null;
  new_image: Record<string, unknown> | null;
  labels_after: string[] | null;
  labels_added: string[] | null;
  labels_removed: string[] | null;
}

/** The columns a read of events selects (with the actor joined as `u`). */
export const eventColumns = sql`${events.id} as id, ${events.type} as type, ${events.resourceType} as resource_type,
  ${events.resourceId} as resource_id, ${events.reference} as reference, ${events.position} as position,
  ${events.createdAt} as created_at, ${events.requestId} as request_id, ${events.via} as via,
  case when u.id is null then null else json_build_object('id', u.id, 'name', u.name, 'email', u.email,
    'avatarUrl', u.avatar_url, 'humanId', u.human_id, 'type', u.type) end as actor,
  ${events.oldImage} as old_image, ${events.newImage} as new_image, ${events.labelsAfter} as labels_after,
  ${events.labelsAdded} as labels_added, ${events.labelsRemoved} as labels_removed`;
/** What the columns are read from: `source` (the events table, or a subquery of it named `events`) and the actors. */
export const eventsJoined = (source: SQL) => sql`${source} left join ${users} as u on u.id = ${events.actorId}`;
export const eventsFrom = eventsJoined(sql`${events}`);

function formatted(field: Field, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  return field.kind === "datetime" ? iso(new Date(value as string)) : value;
}

/** How a type's image becomes its record's fields: each field that reads the image (a column of its tables, or stored). */
interface ImageField {
  name: string;
  field: Field;
  /** The image's key the field is read from; null for a field only `stored` computes. */
  column: string | null;
}

/** Each type's ImageFields, found once per field map (a drizzle column check per field, not per field and image). */
function imageFields(records: EventRecords): Record<ResourceType, ImageField[]> {
  const fieldsOf = (type: ResourceType) =>
    Object.entries(records[type]).flatMap(([name, field]): ImageField[] => {
      const column = field.value as PgColumn;
      const read = !field.hidden && is(field.value, PgColumn) && EVENT_SOURCES[type].tables.includes(getTableName(column.table));
      return read || name === "reference" || (field.stored && !field.hidden) ? [{ name, field, column: read ? column.name : null }] : [];
    });
  return Object.fromEntries((Object.keys(records) as ResourceType[]).map((type) => [type, fieldsOf(type)])) as Record<
    ResourceType,
    ImageField[]
  >;
}

/** A stored row as the record's answer names its fields: every field that is a column of the image's tables. */
function imageData(fields: ImageField[], image: Record<string, unknown>, reference: string | null, at: Date): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const { name, field, column } of fields) {
    // A rename's events keep each image's own reference (pm_team_prefix), so their `changes` name it; others the event's.
    if (name === "reference" && (image.reference ?? reference)) data.reference = image.reference ?? reference;
    if (field.stored && !field.hidden) data[name] = field.stored(image, at);
    if (column !== null && column in image) data[name] = formatted(field, image[column]);
  }
  return data;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const sorted = (ids: string[]) => [...ids].sort();

/** What an update changed, field by field (custom fields by key, labels as `labelIds`); updatedAt is not a change. */
function changesOf(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  row: Pick<EventRow, "labels_after" | "labels_added" | "labels_removed">,
) {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key === "updatedAt" || same(before[key], after[key])) continue;
    if (key === "customFields") {
      const [from, to] = [(before[key] ?? {}) as Record<string, unknown>, (after[key] ?? {}) as Record<string, unknown>];
      for (const name of new Set([...Object.keys(from), ...Object.keys(to)]))
        if (!same(from[name], to[name])) changes[`customFields.${name}`] = { from: from[name] ?? null, to: to[name] ?? null };
    } else changes[key] = { from: before[key] ?? null, to: after[key] ?? null };
  }
  const [added, removed] = [row.labels_added ?? [], row.labels_removed ?? []];
  if (row.labels_after && (added.length || removed.length)) {
    const from = row.labels_after.filter((id) => !added.includes(id)).concat(removed);
    if (!same(sorted(from), sorted(row.labels_after))) changes.labelIds = { from: sorted(from), to: sorted(row.labels_after) };
  }
  return changes;
}

/**
 * How an app renders events with `records`, its modules' field maps (src/http/module.ts builds it once per list of
 * modules): an events row as the API answers it, a record's stored image as an event's `data` has it, and the fields a
 * filter of events names (`changed` takes the fields the maps store).
 */
export function eventRendering(records: EventRecords) {
  const fieldsOf = imageFields(records);
  /**
   * A record's stored image (pm_image of its row) as an event's `data` has it: its reference (tasks, projects) and
   * label ids (the record's labels, when its type has them) beside. A sync snapshot renders its records so too, so that
   * an event's data replaces a record of the snapshot as it is (src/resources/sync/). `at`: when the image was taken
   * (what a claim's liveness is read at).
   */
  function recordData(
    type: ResourceType,
    image: Record<string, unknown>,
    reference: string | null,
    labels: string[] | null,
    at: Date,
  ): Record<string, unknown> {
    const data = imageData(fieldsOf[type], image, reference, at);
    if (labels && (type === "task" || type === "project")) data.labelIds = sorted(labels);
    return data;
  }

  /** An events row (eventColumns) as the API answers it. */
  function renderEvent(row: EventRow): EventDto {
    const type = row.resource_type;
    const image = row.new_image ?? row.old_image;
    const data = image ? recordData(type, image, row.reference, row.labels_after, new Date(row.created_at)) : null;
    const event: EventDto = {
      id: row.id,
      type: row.type,
      resourceType: type,
      resourceId: row.resource_id,
      reference: row.reference,
      actor: row.via === "system" ? SYSTEM_ACTOR : row.actor ? { ...row.actor, via: row.via } : null,
      data,
      requestId: row.request_id,
      position: Number(row.position),
      createdAt: iso(new Date(row.created_at)),
    };
    const changes = renderChanges(row);
    if (changes) event.changes = changes;
    return event;
  }

  /** An update's `changes` as its event has them (without the rest of the event: a bulk write's answer); else undefined. */
  function renderChanges(row: Omit<EventRow, "id" | "position" | "request_id" | "via" | "actor">): EventDto["changes"] {
    if (!row.type.endsWith(".updated") || !row.old_image || !row.new_image) return undefined;
    const at = new Date(row.created_at);
    const [before, after] = [row.old_image, row.new_image].map((image) => imageData(fieldsOf[row.resource_type], image, row.reference, at));
    return changesOf(before, after, row);
  }

  /** Events by id (a webhook's bodies), in one query. */
  async function eventsByIds(db: Executor, ids: string[]): Promise<Map<string, EventDto>> {
    if (ids.length === 0) return new Map();
    const { rows } = await db.execute<EventRow & Record<string, unknown>>(
      sql`select ${eventColumns} from ${eventsFrom} where ${inArray(events.id, ids)}`,
    );
    return new Map(rows.map((row) => [row.id, renderEvent(row)]));
  }

  return { renderEvent, renderChanges, recordData, eventsByIds, filterFields: eventFilterFields(changeableFields(records)) };
}
export type EventRendering = ReturnType<typeof eventRendering>;

/** Events are kept this long (GET /events `after` an older one is 410 GONE). */
export const EVENT_RETENTION_DAYS = 30;
const PRUNE_BATCH = 5000;

/** The Cron Trigger's share: events past the retention go, a batch at a time so no statement runs long. */
export async function pruneEvents(db: Executor): Promise<void> {
  // Ids sort by creation time (TypeIDs of UUIDv7s), so the oldest are the lowest ids: the primary key finds them.
  const cutoff = typeIdAt("evt", Date.now() - EVENT_RETENTION_DAYS * 86_400_000);
  for (;;) {
    const { rowCount } = await db.execute(sql`delete from ${events} where ${events.id} in (
      select ${events.id} from ${events} where ${events.id} < ${cutoff} order by ${events.id} limit ${PRUNE_BATCH})`);
    if ((rowCount ?? 0) < PRUNE_BATCH) return;
  }
}
