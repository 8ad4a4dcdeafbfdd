// The reads of the change feed (docs/events.md): the workspace's stream in commit order, resumable by event id, and a
// record's history newest first. Each is one statement scoped by the caller's credential (so it authenticates itself) and
// limited to what the caller may see: invite, API-key and webhook events only for workspace ADMIN/OWNER, and a key's
// own events for its owner.
import { and, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import { events } from "../../drizzle/schema";
import { AppError, badRequest, notFound, ValidationError } from "../core/errors";
import { decodeCursor, encodeCursor, parseLimit } from "../http/list";
import type { RecordType } from "../http/record";
import { typeIdTime } from "../ids";
import { EVENT_TYPES, type EventDto, PRIVILEGED_TYPES, readEvents } from "../records/events";
import { qualified } from "./access";
import type { Caller } from "./caller";
import type { Actor } from "./principal";
import { workspaceAdminSql } from "./roles";

/** Events are kept this long; resuming after an older one is 410 GONE. */
export const EVENT_RETENTION_DAYS = 30;

export interface EventPage {
  events: EventDto[];
  pagination: { limit: number; nextCursor: string | null };
}

/** The events of the caller's workspace it may see. */
const visibleTo = (actor: Actor): SQL =>
  and(
    eq(events.workspaceId, actor.workspace),
    or(
      sql`${events.resourceType} not in (${sql.join(
        PRIVILEGED_TYPES.map((t) => sql`${t}`),
        sql`, `,
      )})`,
      workspaceAdminSql(actor.role),
      and(eq(events.resourceType, "api_key"), eq(events.ownerId, actor.user)),
    ),
  )!;

/** Committed for good: no transaction still running can add an event below this position. */
const stable = sql`${events.position} < pm_stable_position()`;

/** `types=task.*,comment.created`: known types or `<resourceType>.*`; anything else is 422 at `types`. */
function typesFilter(raw: string | null): SQL | undefined {
  if (raw === null || raw.trim() === "") return undefined;
  const patterns = raw.split(",").map((t) => t.trim());
  const unknown = patterns.filter(
    (p) => p !== "*" && !EVENT_TYPES.includes(p) && !EVENT_TYPES.some((t) => p.endsWith(".*") && t.startsWith(p.slice(0, -1))),
  );
  if (unknown.length) throw new ValidationError({ types: [`Unknown event type(s): ${unknown.join(", ")}; e.g. task.updated or task.*`] });
  return sql`pm_event_matches(${sql.param(patterns)}::text[], ${events.type})`;
}

interface Paging {
  /** The list the cursor belongs to: the stream, or one record's history. */
  list: string;
  direction: "asc" | "desc";
  limit: number;
  cursor: string | null;
}

/** The cursor's position, if the request has one; a cursor of another list, direction or caller is 400. */
async function cursorPosition(caller: Caller, paging: Paging): Promise<number | undefined> {
  if (paging.cursor === null) return undefined;
  const cursor = await decodeCursor(paging.cursor, caller.cursorKey);
  if (cursor.r !== paging.list || cursor.s !== paging.direction || typeof cursor.v[0] !== "number") throw badRequest("Invalid cursor");
  return cursor.v[0];
}

/** One page (limit + 1 rows read): the events and the cursor of the next page, null when none follows now. */
async function page(caller: Caller, paging: Paging, where: (actor: Actor) => SQL): Promise<EventPage> {
  const position = await cursorPosition(caller, paging);
  const after =
    position === undefined
      ? undefined
      : paging.direction === "asc"
        ? sql`${events.position} > ${position}`
        : sql`${events.position} < ${position}`;
  const found = await caller.list((actor) =>
    readEvents(caller.db, and(where(actor), after)!, sql`${events.position} ${sql.raw(paging.direction)}`, paging.limit + 1),
  );
  const shown = found.slice(0, paging.limit);
  const last = shown.at(-1);
  const nextCursor =
    found.length > paging.limit && last
      ? await encodeCursor({ r: paging.list, s: paging.direction, v: [last.position], i: last.id }, caller.cursorKey)
      : null;
  return { events: shown, pagination: { limit: paging.limit, nextCursor } };
}

/** Where `after=<event id>` resumes: its position, 410 when it is past the retention, 400 when no such event is known. */
async function afterPosition(caller: Caller, id: string): Promise<number> {
  const [row] = await caller.read(({ workspace }) =>
    caller.db
      .select({ position: events.position })
      .from(events)
      .where(and(eq(events.id, id), eq(events.workspaceId, workspace))),
  );
  if (row) return row.position;
  const time = typeIdTime(id, "evt");
  if (time !== null && time < Date.now() - EVENT_RETENTION_DAYS * 86_400_000)
    throw new AppError("GONE", `Events are kept ${EVENT_RETENTION_DAYS} days; ${id} is older. Start again without \`after\``);
  if (!(await caller.holds())) return caller.missing("Event");
  throw badRequest(`after: no event ${id} in this workspace`, { field: "after" });
}

/**
 * GET /events: the caller's workspace's events in commit order, after `after` (an event id) or the cursor, only those
 * no running transaction can still precede, so resuming from the last event read never skips or repeats one.
 */
export async function eventStream(caller: Caller, query: URLSearchParams): Promise<EventPage> {
  const limit = parseLimit(query.get("limit"));
  const types = typesFilter(query.get("types"));
  const resource = query.get("resourceId");
  const after = query.get("after");
  const from = after && query.get("cursor") === null ? await afterPosition(caller, after) : undefined;
  return page(
    caller,
    { list: "events", direction: "asc", limit, cursor: query.get("cursor") },
    (actor) =>
      and(
        visibleTo(actor),
        stable,
        types,
        resource ? or(eq(events.resourceId, resource), sql`upper(${events.reference}) = upper(${resource})`) : undefined,
        from === undefined ? undefined : sql`${events.position} > ${from}`,
      )!,
  );
}

/** GET /<records>/{id}/history: the events of the record `idOrRef` names, newest first (404 when it does not exist). */
export async function recordHistory(caller: Caller, record: RecordType, idOrRef: string, query: URLSearchParams): Promise<EventPage> {
  const limit = parseLimit(query.get("limit"));
  const found = await caller.read(async ({ workspace }) => {
    const [row] = await caller.db
      .select({ id: sql<string>`${qualified(record.fields.id.value)}` })
      .from(record.from)
      .where(record.named(workspace, idOrRef))
      .limit(1);
    if (!row) throw notFound(record.noun);
    return row;
  });
  return page(
    caller,
    { list: `history:${found.id}`, direction: "desc", limit, cursor: query.get("cursor") },
    (actor) => and(visibleTo(actor), stable, inArray(events.resourceId, [found.id]))!,
  );
}
