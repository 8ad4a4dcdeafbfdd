import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, jsonResponse } from "../../http/openapi";
import { reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { documentedLater, filterQueryFor, IdParam, ListQuery, MAX_ID_LENGTH, Pagination } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { Event, type EventRendering } from "../../records/events";
import { type HistoryOf, listEvents, recordEvents } from "./operations";
import { MAX_WAIT_SECONDS, STREAM_WALK } from "./stream";

const EventPage = z.object({ events: z.array(Event), pagination: Pagination }).openapi("EventPage");
const { fields: _, ...paging } = ListQuery.shape;

/** GET /events, its filter parameters those of the app's rendering (`changed`: the fields its field maps store). */
const streamRoute = ({ filterFields }: EventRendering) =>
  createRoute({
    ...protectedRoute("Events"),
    method: "get",
    operationId: "listEvents",
    path: "/events",
    summary: "The workspace's changes, in commit order",
    description:
      "Every change of a task, project, milestone, comment, label, team, team member, field, member, workspace, invite, API key, " +
      "agent or webhook is one event, committed with the change. Resume with `after=` the id of the last event processed: the " +
      "answer holds exactly the events committed after it, none skipped, none repeated, also while other transactions " +
      "commit out of order. `pagination.nextCursor` is null when nothing more is committed now. A page checks at most " +
      `${STREAM_WALK.toLocaleString("en")} events against its filters: one whose filters keep few may hold fewer than \`limit\`, even none, ` +
      "with the `nextCursor` to read on from. Events are kept 30 days; " +
      "`after` an older one is 410 GONE. Invite, API-key and webhook events only reach workspace ADMIN/OWNER (and a key's owner, its own). " +
      "`filter[<op>][<field>]` keeps the events whose record passes, in the list filter syntax (eq, neq, in) with the record's field " +
      "names (names as everywhere: `filter[eq][teamId]=ENG`) and `changed` (a field an update changed: only `*.updated` events pass " +
      "a filter naming it). `wait=N` (1..30 s): when nothing newer is readable, the answer waits for the next event the caller may " +
      "read and the filters keep (answered within a second of its commit), or is empty when the time is up.",
    request: { query: streamQuery(filterFields) },
    responses: {
      200: jsonResponse(EventPage, "Events, oldest first"),
      ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "GONE"], { validation: true }),
    },
  });

/** GET /events' query; its filter parameters, which the stream reads from the raw query, documented later (before `wait`). */
function streamQuery(filterFields: EventRendering["filterFields"]) {
  const own = {
    ...paging,
    after: z.string().max(MAX_ID_LENGTH).optional().openapi({ description: "Id of the last event processed (`evt_…`)" }),
    types: z
      .string()
      .max(2000)
      .optional()
      .openapi({ description: "Comma-separated event types or `<resourceType>.*`, e.g. `task.*,comment.created`", example: "task.*" }),
    resourceId: z
      .string()
      .max(MAX_ID_LENGTH)
      .optional()
      .openapi({ description: "Only this record's events: an id, or a task, project or cycle reference" }),
  };
  const wait = {
    // Parsed by the stream (parseWait: 422 `{errors:{wait}}`, as `limit`), so the runtime schema stays a string.
    wait: z
      .string()
      .optional()
      .openapi({
        type: "integer",
        minimum: 1,
        maximum: MAX_WAIT_SECONDS,
        description:
          `Seconds (1..${MAX_WAIT_SECONDS}) to wait when nothing newer is readable: the answer comes within a second of the next ` +
          "event the caller may read (and that the filters keep), or empty when the time is up",
        example: 30,
      }),
  };
  return documentedLater(z.object({ ...own, ...wait }), () => z.object({ ...own, ...filterQueryFor(filterFields), ...wait }));
}

const history = (of: HistoryOf, noun: string, example: string) =>
  createRoute({
    // Reads the record: the write scopes that read it may.
    ...protectedRoute("Events", { reads: of }),
    method: "get",
    operationId: `get${noun}History`,
    path: `/${of}/{id}/history`,
    summary: `A ${noun.toLowerCase()}'s history, newest first`,
    description: `The ${noun.toLowerCase()}'s events (who changed what, and when), newest first, paged. Another workspace's is 404.`,
    request: {
      params: IdParam.extend({ id: IdParam.shape.id.openapi({ param: { name: "id", in: "path" }, example }) }),
      query: z.object(paging),
    },
    responses: {
      200: jsonResponse(EventPage, "Events, newest first"),
      ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
    },
  });

const HISTORIES: Array<[HistoryOf, string, string]> = [
  ["tasks", "Task", "ENG-12"],
  ["projects", "Project", "ENG-P3"],
  ["milestones", "Milestone", "mile_01jz8x4q0be0sv3c5kq9v1y2ab"],
];

/** The feed's routes, rendering events with `rendering` (its app's: src/http/module.ts). */
export function eventRoutes(rendering: EventRendering) {
  const stream = streamRoute(rendering);
  const routes = newRouter().openapi(
    stream,
    reading(stream, ({ caller, url, keepAlive }) => listEvents(rendering, caller, url.searchParams, keepAlive)),
  );
  for (const [of, noun, example] of HISTORIES) {
    const route = history(of, noun, example);
    routes.openapi(
      route,
      reading(route, ({ caller, param, url }) => recordEvents(rendering, caller, of, param.id, url.searchParams)),
    );
  }
  return routes;
}
