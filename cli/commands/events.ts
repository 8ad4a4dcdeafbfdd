// `pm events`: the workspace's change feed (GET /events), oldest first, resumable with `--after` the last event id;
// `--follow` waits for what is committed next (GET /events?wait=, answered within a second of the commit), resuming
// from the last event it printed. Also how an event reads for people, which `pm tasks history` shares.
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { ApiError, ConnectionError, UsageError } from "../errors";
import { type Column, cell, printJson } from "../output";
import { openSession, type Session, unwrap } from "../session";

type Event = Schemas["Event"];

/** `2026-05-01 14:03:22` (UTC): an event's time to the second. */
export const when = (event: Event) => event.createdAt.slice(0, 19).replace("T", " ");

/** Who made the change (`-` when no user did). */
export const who = (event: Event) => event.actor?.name ?? "-";

const MAX_VALUE = 40;
const shortValue = (value: unknown) => {
  const text = cell(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
};

/** Changed fields that hold a user's id, and how a person calls them. */
const USER_FIELDS: Record<string, string> = { assigneeId: "assignee", leadId: "lead" };

/** A changed value for people: a user's id as their name (when `names` knows it), no value (or an empty one) as `–`. */
function changedValue(value: unknown, names: Map<string, string>, isUser: boolean): string {
  if (value === null || value === undefined || value === "") return "–";
  return isUser && typeof value === "string" ? (names.get(value) ?? shortValue(value)) : shortValue(value);
}

/** An update's changes as `field: from → to`, joined by `; ` (`-` for an event without changes); `names`: user ids' names. */
export function changesText(event: Event, names = new Map<string, string>()): string {
  const changes = Object.entries(event.changes ?? {});
  if (changes.length === 0) return "-";
  return changes
    .map(([field, { from, to }]) => {
      const user = USER_FIELDS[field];
      return `${user ?? field}: ${changedValue(from, names, Boolean(user))} → ${changedValue(to, names, Boolean(user))}`;
    })
    .join("; ");
}

/** The names of the users the events' changes point at (one request, none when no change names a user). */
async function userNames({ client }: Session, events: Event[]): Promise<Map<string, string>> {
  const ids = new Set<string>();
  for (const event of events)
    for (const [field, change] of Object.entries(event.changes ?? {}))
      if (USER_FIELDS[field]) for (const value of [change.from, change.to]) if (typeof value === "string") ids.add(value);
  if (ids.size === 0) return new Map();
  const query = { "filter[in][id]": [...ids], fields: "id,name", limit: 250 };
  const { users } = await unwrap(client.GET("/users", { params: { query } }));
  return new Map(users.flatMap((user) => (user.id && user.name ? [[user.id, user.name] as [string, string]] : [])));
}

/** The columns of a history table (`pm tasks history`), newest first as the API answers, users by name. */
export async function historyColumns(session: Session, events: Event[]): Promise<Column<Event>[]> {
  const names = await userNames(session, events);
  return [
    { header: "WHEN (UTC)", value: when },
    { header: "WHO", value: who },
    { header: "VIA", value: (e) => e.actor?.via },
    { header: "TYPE", value: (e) => e.type },
    { header: "CHANGES", value: (e) => changesText(e, names) },
  ];
}

/** What a page of events names by id, by name: the tasks comments are on (their references), users (their names). */
export interface References {
  tasks: Map<string, string>;
  users: Map<string, string>;
}

/**
 * Which record an event is about, for people: its reference, else its name or title; a comment as `comment on
 * ENG-3`; else its id.
 */
function target(event: Event, references: References): string {
  const taskId = event.resourceType === "comment" ? event.data?.taskId : undefined;
  if (typeof taskId === "string") return `comment on ${references.tasks.get(taskId) ?? taskId}`;
  return cell(event.reference ?? event.data?.name ?? event.data?.title ?? event.resourceId);
}

/** The references of the tasks the page's comment events are on (one request; none without comment events). */
async function commentTasks({ client }: Session, events: Event[]): Promise<Map<string, string>> {
  const ids = [
    ...new Set(events.flatMap((e) => (e.resourceType === "comment" && typeof e.data?.taskId === "string" ? [e.data.taskId] : []))),
  ];
  if (ids.length === 0) return new Map();
  const query = { "filter[in][id]": ids, fields: "id,reference", limit: 250 };
  const { tasks } = await unwrap(client.GET("/tasks", { params: { query } }));
  return new Map(tasks.flatMap((task) => (task.id && task.reference ? [[task.id, task.reference] as [string, string]] : [])));
}

/** One line of the stream for people: when, type, which record, who (and how), what changed. */
function eventLine(event: Event, references: References): string {
  const via = event.actor?.via ? ` (${event.actor.via})` : "";
  return [
    when(event),
    event.type.padEnd(19),
    shortValue(target(event, references)).padEnd(16),
    `${who(event)}${via}`,
    changesText(event, references.users),
  ].join("  ");
}

/** A 410 says the resume point is past the events kept: say what to do instead. */
function gone(error: unknown, after: string | undefined): unknown {
  if (!(error instanceof ApiError) || error.status !== 410) return error;
  return new ApiError(
    410,
    error.code,
    `events are kept 30 days and ${after ?? "the event to resume after"} is older: run \`pm events\` without --after to start again from the oldest event kept`,
  );
}

export interface StreamQuery {
  types?: string;
  resourceId?: string;
  limit?: number;
  /** Seconds the API may wait for an event when none is newer (--follow). */
  wait?: number;
  [filter: `filter[${string}][${string}]`]: string | string[];
}

/** How long one request of --follow waits for the next event (the API's longest). */
const FOLLOW_WAIT_SECONDS = 30;
/** How long --follow waits before trying again when the API cannot be reached. */
const RETRY_SECONDS = 2;

/**
 * Every event committed now after `after` (all pages), each handed to `print` as its page arrives; with `names`, what
 * the page names by id is read by name first (two requests a page at most).
 */
export async function drain(
  session: Session,
  filters: StreamQuery,
  after: string | undefined,
  print: (event: Event, references: References) => Promise<void>,
  names: boolean,
  signal?: AbortSignal,
): Promise<void> {
  let cursor: string | undefined;
  for (;;) {
    const query = { ...filters, ...(cursor ? { cursor } : after ? { after } : {}) };
    const page = await unwrap(session.client.GET("/events", { params: { query }, signal })).catch((error) => {
      throw gone(error, after);
    });
    const [tasks, users] = names ? await Promise.all([commentTasks(session, page.events), userNames(session, page.events)]) : [];
    const references = { tasks: tasks ?? new Map(), users: users ?? new Map() };
    for (const event of page.events) await print(event, references);
    if (!page.pagination.nextCursor) return;
    cursor = page.pagination.nextCursor;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** `--filter '{"eq":{"teamId":"ENG"}}'` as the query's `filter[<op>][<field>]` parameters (the API checks them). */
function filterQuery(raw: string | undefined): Record<`filter[${string}][${string}]`, string | string[]> {
  if (raw === undefined) return {};
  let filter: unknown;
  try {
    filter = JSON.parse(raw);
  } catch {
    throw new UsageError(`--filter must be JSON such as '{"eq":{"teamId":"ENG"}}' (got '${raw}')`);
  }
  if (typeof filter !== "object" || filter === null || Array.isArray(filter))
    throw new UsageError("--filter must be a JSON object: {<op>: {<field>: value}}");
  const query: Record<`filter[${string}][${string}]`, string | string[]> = {};
  for (const [op, byField] of Object.entries(filter as Record<string, Record<string, unknown>>))
    for (const [field, value] of Object.entries(byField ?? {}))
      query[`filter[${op}][${field}]`] = Array.isArray(value) ? value.map((v) => String(v)) : String(value);
  return query;
}

export const events = defineCommand({
  meta: {
    name: "pm events",
    description:
      "What changed in the workspace, oldest first: the events after --after (an event id; without it, the oldest kept, " +
      "30 days); --follow waits for new ones (each printed within a second of its commit) until Ctrl-C",
  },
  args: {
    after: { type: "string", valueHint: "evt_…", description: "Only events committed after this one (the last id you processed)" },
    types: { type: "string", valueHint: "task.*,comment.created", description: "Only these event types (`<resource>.*` for all of one)" },
    resource: { type: "string", valueHint: "ENG-12|id", description: "Only this record's events" },
    limit: { type: "string", valueHint: "n", description: "Events per request, 1..250 (the API's default 50)" },
    filter: {
      type: "string",
      valueHint: '\'{"eq":{"teamId":"ENG"}}\'',
      description: "Only events whose record passes this filter (JSON, the list filter syntax; `changed` names changed fields)",
    },
    follow: { type: "boolean", alias: "f", description: "Keep waiting for new events, resuming from the last one printed" },
    ...commonArgs,
    json: { ...commonArgs.json, description: "One JSON event per line, as the API answers it (for scripts)" },
  },
  async run({ args }) {
    if (args.limit !== undefined && !/^\d+$/.test(args.limit)) throw new UsageError(`--limit must be a whole number (got '${args.limit}')`);
    const filters: StreamQuery = {
      ...filterQuery(args.filter),
      ...(args.types === undefined ? {} : { types: args.types }),
      ...(args.resource === undefined ? {} : { resourceId: args.resource }),
      ...(args.limit === undefined ? {} : { limit: Number(args.limit) }),
    };
    // Scripts get one JSON object per line, so each line parses on its own as it arrives.
    const line = (event: Event, references: References) =>
      args.json ? printJson(event, { compact: true }) : console.log(eventLine(event, references));
    // The id of the last event printed: where the next read resumes.
    let last = args.after;
    const print = async (event: Event, references: References) => {
      await line(event, references);
      last = event.id;
    };
    const session = openSession(args);
    await drain(session, filters, last, print, !args.json);
    if (args.follow) {
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      // Each request waits up to 30 s on the API for the next event; an empty answer is simply asked again.
      const waiting = { ...filters, wait: FOLLOW_WAIT_SECONDS };
      while (!stop.signal.aborted) {
        // An API that cannot be reached for a moment (restarting, offline) is waited for; an answer that is an error ends it.
        await drain(session, waiting, last, print, !args.json, stop.signal).catch(async (error) => {
          if (stop.signal.aborted) return;
          if (!(error instanceof ConnectionError)) throw error;
          console.error(`warning: ${error.message}; trying again in ${RETRY_SECONDS}s`);
          await sleep(RETRY_SECONDS * 1000, stop.signal);
        });
      }
    }
    if (last && !args.json) console.error(`resume: --after ${last}`);
  },
});
