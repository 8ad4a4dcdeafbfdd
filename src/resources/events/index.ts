// Events as one module (src/http/module.ts): the register entry, routes and MCP tools, which render events with the
// field maps of the modules their app serves (eventRenderingOf).
import { z } from "@hono/zod-openapi";
import { eventRenderingOf, type ResourceModule } from "../../http/module";
import { Pagination } from "../../http/route-schemas";
import { Cursor, pageQuery, tool } from "../../http/tool";
import { ListInput } from "../../http/tool-input";
import { Event, type EventRendering } from "../../records/events";
import { NameOf } from "../../records/names";
import { listEvents, recordEvents } from "./operations";
import register from "./register";
import { eventRoutes } from "./routes";

const TaskRef = NameOf("task");
const { limit: Limit } = ListInput.shape;
const EventPage = z.object({ events: z.array(Event), pagination: Pagination });

const eventTools = (rendering: EventRendering) => [
  tool({
    name: "get_task_history",
    rank: 250,
    title: "A task's history",
    description: "A task's changes, newest first (GET /tasks/{id}/history).",
    rest: "GET /tasks/{id}/history",
    input: z.object({ id: TaskRef, limit: Limit, cursor: Cursor }).strict(),
    output: EventPage,
    async run(ctx, { id, ...page }) {
      const { events, pagination } = await recordEvents(rendering, ctx.caller, "tasks", id, pageQuery(page));
      return { events, pagination };
    },
  }),
  tool({
    name: "list_events",
    rank: 260,
    title: "What changed since",
    description:
      "The workspace's changes, oldest first in commit order (GET /events). To follow along, pass the last event you processed " +
      "as `after` next time. A non-null pagination.nextCursor means more is committed. An `after` older than 30 days is GONE.",
    rest: "GET /events",
    input: z
      .object({
        after: z.string().min(1).optional().describe("Id of the last event you processed (`evt_…`)"),
        types: z.array(z.string().min(1)).min(1).optional().describe("Event types; `task.*` matches all of one resource"),
        resourceId: z.string().min(1).optional().describe("One record's events: an id or a reference (`ENG-12`, `ENG-P3`)"),
        limit: Limit,
        cursor: Cursor,
      })
      .strict(),
    output: EventPage,
    async run(ctx, { after, types, resourceId, ...page }) {
      const query = pageQuery(page);
      if (after !== undefined) query.set("after", after);
      if (types !== undefined) query.set("types", types.join(","));
      if (resourceId !== undefined) query.set("resourceId", resourceId);
      const { events, pagination } = await listEvents(rendering, ctx.caller, query);
      return { events, pagination };
    },
  }),
];

export default {
  name: "events",
  resource: register,
  routes: (_app, modules) => [eventRoutes(eventRenderingOf(modules))],
  tools: (modules) => eventTools(eventRenderingOf(modules)),
} satisfies ResourceModule;
