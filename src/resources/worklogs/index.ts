// Time tracking as one module (src/http/module.ts): its register entry, routes (`/tasks/{id}/worklogs`, `/worklogs`,
// `/worklogs/summary`, `/worklogs/{id}`) and MCP tools. The task's `timeTracking` and the events render with its field
// map (src/resources/worklogs/record.ts), which the layers below the resources read; the export and import page it as links.
import { z } from "@hono/zod-openapi";
import type { ResourceModule } from "../../http/module";
import { listTool, tool } from "../../http/tool";
import { NameOf } from "../../records/names";
import { listWorklogs, logTime } from "./operations";
import { StartedAt, Worklog, worklogRecord } from "./record";
import register from "./register";
import { worklogRoutes } from "./routes";
import { checkCreate, secondsOf, worklogCreateShape } from "./schema";
import { worklogsPart } from "./transfer";

export default {
  name: "worklogs",
  resource: register,
  eventRecords: { worklog: worklogRecord.fields },
  routes: [worklogRoutes],
  transfer: worklogsPart,
  tools: [
    tool({
      name: "log_time",
      rank: 270,
      title: "Log time",
      description:
        "Logs time on a task (POST /tasks/{id}/worklogs): duration `1h 30m`, `45m`, `2d` (8h days) or durationSeconds; " +
        "startedAt defaults to now minus it.",
      rest: "POST /tasks/{id}/worklogs",
      input: z
        .object({ id: NameOf("task"), ...worklogCreateShape, startedAt: StartedAt.optional() })
        .strict()
        .superRefine(checkCreate),
      output: z.object({ worklog: Worklog }),
      async run(ctx, { id, startedAt, ...body }) {
        const durationSeconds = secondsOf(body) as number;
        const started = startedAt ?? new Date(Date.now() - durationSeconds * 1000).toISOString();
        return { worklog: await logTime(ctx.caller, id, { ...body, startedAt: started, durationSeconds }) };
      },
    }),
    { ...listTool("worklogs", worklogRecord, listWorklogs), rank: 280 },
  ],
} satisfies ResourceModule;
