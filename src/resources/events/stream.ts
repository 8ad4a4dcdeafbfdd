// The reads of the change feed (docs/events.md): the workspace's stream in commit order, resumable by event id, and a
// record's history newest first. Each is one statement scoped by the caller's credential (so it authenticates itself) and
// limited to what the caller may see (the rule the operation passes in: auth/event-access.ts).
import { and, eq, or, type SQL, sql } from "drizzle-orm";
import { events } from "../../../drizzle/schema";
import { AppError, badRequest, notFound, ValidationError } from "../../core/errors";
import { eventWatcher, type KeepAlive, MAX_WAIT_SECONDS, parseWait } from "../../db/event-watcher";
import { typeIdTime } from "../../ids";
import { eventFilterJson, eventFilterTerms } from "../../records/event-filter";
import { isEventPattern } from "../../records/event-types";
import {
  EVENT_RETENTION_DAYS,
  type EventDto,
  type EventRendering,
  type EventRow,
  eventColumns,
  eventsFrom,
  eventsJoined,
} from "../../records/events";
import { namedId, parseCycleRef, parseProjectRef, parseTaskRef, type Workspace } from "../../records/names";
import { qualified, type RecordType } from "../../store/field-map";
import { decodeCursor, encodeCursor, parseLimit } from "../../store/list";
import type { Actor, StatementCaller as Caller } from "../../store/statement-caller";

export interface EventPage {
  events: EventDto[];
  pagination: { limit: number; nextCursor: string | null };
}

/** Which events of its workspace the caller may see (auth/event-access.ts states the rule). */
export type EventsVisible = (actor: Actor) => SQL;

/** Committed for good: no transaction still running can add an event below this position. */
const stable = sql`${events.position} < pm_stable_position()`;

/**
 * How many of its workspace's events one page of the stream checks against the filters and the caller's visibility at
 * most (about 6 µs each): a filter that keeps few of them answers a short page, even an empty one, with a `nextCursor`
 * past the last event checked, rather than walking the whole 30 days in one statement.
 */
export const STREAM_WALK = 5_000;

/** `types=task.*,comment.created`: known types or `<resourceType>.*`; anything else is 422 at `types`. */
function typesFilter(raw: string | null): SQL | undefined {
  if (raw === null || raw.trim() === "") return undefined;
  const patterns = raw.split(",").map((t) => t.trim());
  const unknown = patterns.filter((p) => !isEventPattern(p));
  if (unknown.length) throw new ValidationError({ types: [`Unknown event type(s): ${unknown.join(", ")}; e.g. task.updated or task.*`] });
  return sql`pm_event_matches(${sql.param(patterns)}::text[], ${events.type})`;
}

/** `filter[<op>][<field>]=…`: only events whose record passes (pm_event_filter), names resolved in the statement. */
function recordFilter(rendering: EventRendering, caller: Caller, query: URLSearchParams): SQL | undefined {
  const terms = eventFilterTerms(query, rendering.filterFields);
  return terms.length ? sql`pm_event_filter(${eventFilterJson(terms, caller.actor.workspace)}, ${events})` : undefined;
}

interface Paging {
  /** `after=<event id>` of the stream, for the 410/400 when it names no event. */
  after?: string;
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

/** The one-row head of a page's statement: the `after` event's position and the record a history is of. */
interface Head {
  /** `after=<event id>`: its position, null when this workspace has no such event (410 or 400). */
  anchor?: SQL;
  /** A history's record id, null when it does not exist (404). */
  subject?: SQL;
  noun?: string;
  /** Also read the workspace's id and its newest readable position (what a waiting read waits past). */
  watch?: boolean;
}

type EventPageRow = EventRow & {
  /** A walked page's row: whether it passed the filters (else it only marks where the walk ended), and its rank. */
  shown?: boolean;
  walked?: string;
  live: boolean;
  anchor: string | null;
  subject: string | null;
  ws: string | null;
  latest: string | null;
} & Record<string, unknown>;

/** A page and, when its head asked (`watch`), where its workspace's stream stood when it was read. */
type WatchedPage = EventPage & { workspace: string | null; latest: number | null };

/**
 * One page in ONE statement (limit + 1 events read): whether the credential is live, the head's values, and the events
 * (`where` may use `head.anchor` and `head.subject`); then the cursor of the next page, null when none follows now.
 * With `kept`, the events `where` takes are walked in order, at most STREAM_WALK of them, and those `kept` passes are the
 * page; a walk that ends before the page is full gives the cursor past its last event.
 */
async function page(
  rendering: EventRendering,
  caller: Caller,
  paging: Paging,
  head: Head,
  where: (actor: Actor) => SQL,
  kept?: (actor: Actor) => SQL | undefined,
): Promise<WatchedPage> {
  const position = await cursorPosition(caller, paging);
  const actor = caller.actor;
  const before = paging.direction === "asc" ? sql`>` : sql`<`;
  const watched = head.watch
    ? sql`${actor.workspace}::text as ws, (select max(${events.position}) from ${events}
        where ${events.workspaceId} = ${actor.workspace} and ${stable}) as latest`
    : sql`null::text as ws, null::bigint as latest`;
  const order = sql`order by ${events.position} ${sql.raw(paging.direction)}`;
  const taken = and(where(actor), position === undefined ? undefined : sql`${events.position} ${before} ${position}`);
  const filtered = kept?.(actor);
  // The walk is lazy: the page stops reading as soon as it holds limit + 1 events.
  const source = kept
    ? sql`${eventsJoined(sql`(select ${events}.*, coalesce(${filtered ?? sql`true`}, false) as shown, row_number() over (${order}) as walked
        from ${events} where ${taken} ${order} limit ${STREAM_WALK}) ${events}`)}
        where ${events}.shown or ${events}.walked = ${STREAM_WALK}`
    : sql`${eventsFrom} where ${taken}`;
  const marks = kept ? sql`, ${events}.shown, ${events}.walked` : sql``;
  const { rows } = await caller.db.execute<EventPageRow>(sql`
    select ${caller.live} as live, head.anchor, head.subject, head.ws, head.latest, page.* from (
      select ${head.anchor ?? sql`null::bigint`} as anchor, ${head.subject ?? sql`null::text`} as subject, ${watched}) head
    left join lateral (
      select ${eventColumns}${marks} from ${source}
      ${order} limit ${paging.limit + 1}) page on true`);
  const [first] = rows;
  if (!first.live) throw await caller.refused();
  if (head.subject && first.subject === null) throw notFound(head.noun ?? "Record");
  if (head.anchor && first.anchor === null) throw afterUnknown(paging);
  caller.touch();
  const found = rows.filter((row) => row.id !== null && row.shown !== false).map(rendering.renderEvent);
  const shown = found.slice(0, paging.limit);
  const last = shown.at(-1);
  // Where the walk ended, when it ended before the page was full: the next page starts past it.
  const walkEnd = found.length > paging.limit ? undefined : rows.find((row) => Number(row.walked) === STREAM_WALK);
  const resume = found.length > paging.limit && last ? last : walkEnd && { position: Number(walkEnd.position), id: "" };
  const nextCursor = resume
    ? await encodeCursor({ r: paging.list, s: paging.direction, v: [resume.position], i: resume.id }, caller.cursorKey)
    : null;
  const latest = first.latest === null ? null : Number(first.latest);
  return { events: shown, pagination: { limit: paging.limit, nextCursor }, workspace: first.ws, latest };
}

/** `after` names no event of this workspace: 410 when it is older than the retention, 400 otherwise. */
function afterUnknown(paging: Paging & { after?: string }): Error {
  const id = paging.after ?? "";
  const time = typeIdTime(id, "evt");
  if (time !== null && time < Date.now() - EVENT_RETENTION_DAYS * 86_400_000)
    return new AppError("GONE", `Events are kept ${EVENT_RETENTION_DAYS} days; ${id} is older. Start again without \`after\``);
  return badRequest(`after: no event ${id} in this workspace`, { field: "after" });
}

/**
 * GET /events: the caller's workspace's events in commit order, after `after` (an event id) or the cursor, only those
 * no running transaction can still precede, so resuming from the last event read never skips or repeats one.
 */
export async function eventStream(
  rendering: EventRendering,
  caller: Caller,
  query: URLSearchParams,
  visible: EventsVisible,
  keepAlive?: KeepAlive,
): Promise<EventPage> {
  const wait = parseWait(query.get("wait"));
  const limit = parseLimit(query.get("limit"));
  const types = typesFilter(query.get("types"));
  const filter = recordFilter(rendering, caller, query);
  const resource = query.get("resourceId");
  const cursor = query.get("cursor");
  // A cursor carries its own position; `after` only starts a walk.
  const after = cursor === null ? (query.get("after") ?? undefined) : undefined;
  const anchor = after
    ? sql`(select ${events.position} from ${events} where ${events.id} = ${after} and ${events.workspaceId} = ${caller.actor.workspace})`
    : undefined;
  const read = () =>
    page(
      rendering,
      caller,
      { list: "events", direction: "asc", limit, cursor, after },
      { anchor, watch: wait !== undefined },
      // One record's events are found by its indexes (events_resource_idx, events_reference_idx), not walked to.
      (actor) =>
        and(
          eq(events.workspaceId, actor.workspace),
          stable,
          resource ? or(eq(events.resourceId, resource), referenceIs(resource, caller.actor.workspace)) : undefined,
          anchor ? sql`${events.position} > head.anchor` : undefined,
        )!,
      (actor) => and(visible(actor), types, filter),
    );
  const first = await read();
  return wait === undefined ? answer(first) : waitFor(caller, first, read, Date.now() + wait * 1000, keepAlive);
}

const answer = ({ events, pagination }: EventPage): EventPage => ({ events, pagination });

/**
 * `wait=N`: an empty page waits (on the isolate's one watcher, db/event-watcher.ts) until the workspace's stream moves past what
 * the last read saw, then reads again; an event the caller may not see, or that the filters leave out, only moves the
 * mark. Empty when the time is up.
 */
async function waitFor(
  caller: Caller,
  first: WatchedPage,
  read: () => Promise<WatchedPage>,
  deadline: number,
  keepAlive?: KeepAlive,
): Promise<EventPage> {
  let last = first;
  // A page that a walk ended early has a cursor to follow at once: nothing to wait for.
  while (last.events.length === 0 && last.pagination.nextCursor === null && last.workspace !== null) {
    if (!(await eventWatcher.wait(caller.db, last.workspace, last.latest, deadline, keepAlive))) break;
    last = await read();
  }
  return answer(last);
}

/**
 * The events whose reference `value` names, read as the name resolver reads it (an ASCII prefix in any case, the number
 * as a number), so `ınfra-1` names nothing here as it does in a path, whatever the database's locale makes of upper():
 * those that carried it, and every event of the record it names now (a team renamed: `ENG-1` is `OPS-1`'s whole story).
 */
function referenceIs(value: string, workspace: Workspace): SQL | undefined {
  const task = parseTaskRef(value);
  const project = task ? null : parseProjectRef(value);
  const cycle = task || project ? null : parseCycleRef(value);
  const [kind, canonical] = task
    ? (["task", `${task.prefix}-${task.number}`] as const)
    : project
      ? (["project", `${project.prefix}-P${project.number}`] as const)
      : cycle
        ? (["cycle", `${cycle.prefix}-C${cycle.number}`] as const)
        : [null, null];
  if (kind === null) return undefined;
  return sql`(upper(${events.reference}) = ${canonical} or ${events.resourceId} = ${namedId(kind, value, workspace)})`;
}

/** GET /<records>/{id}/history: the events of the record `idOrRef` names, newest first (404 when it does not exist). */
export async function recordHistory(
  rendering: EventRendering,
  caller: Caller,
  record: RecordType,
  idOrRef: string,
  query: URLSearchParams,
  visible: EventsVisible,
): Promise<EventPage> {
  const limit = parseLimit(query.get("limit"));
  const subject = sql`(select ${qualified(record.fields.id.value)} from ${record.from} where ${record.named(caller.actor, idOrRef)} limit 1)`;
  const cursor = query.get("cursor");
  // The cursor is bound to the record it pages (its id as named now), so another record's cursor is 400.
  return answer(
    await page(
      rendering,
      caller,
      { list: `history:${record.noun}:${idOrRef.toUpperCase()}`, direction: "desc", limit, cursor },
      { subject, noun: record.noun },
      // A task's history holds the events of records between it and another task too (their task_ids name both).
      (actor) => and(visible(actor), stable, sql`(${events.resourceId} = head.subject or ${events.taskIds} @> array[head.subject])`)!,
    ),
  );
}

export { MAX_WAIT_SECONDS };
