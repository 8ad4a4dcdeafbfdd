// A task's URL links as one module (src/http/module.ts): their register entry, routes (`/tasks/{id}/links`,
// `/links/{id}`) and MCP tool. The task's answer embeds them (src/resources/links/record.ts, a task field).
import { z } from "@hono/zod-openapi";
import type { ResourceModule } from "../../http/module";
import { tool } from "../../http/tool";
import { NameOf } from "../../records/names";
import { addLink } from "./operations";
import { linkRecord, TaskLink, TaskLinkCreate } from "./record";
import register from "./register";
import { taskLinkRoutes } from "./routes";
import { linksPart } from "./transfer";

export default {
  name: "links",
  resource: register,
  eventRecords: { link: linkRecord.fields },
  routes: [taskLinkRoutes],
  transfer: linksPart,
  tools: [
    tool({
      name: "add_link",
      rank: 80,
      title: "Add a link",
      description: "Adds a URL to a task (POST /tasks/{id}/links); the same URL again returns its link.",
      rest: "POST /tasks/{id}/links",
      input: z.object({ id: NameOf("task"), ...TaskLinkCreate.shape }).strict(),
      output: z.object({ link: TaskLink }),
      async run(ctx, { id, ...body }) {
        return { link: (await addLink(ctx.caller, id, body)).link };
      },
    }),
  ],
} satisfies ResourceModule;
