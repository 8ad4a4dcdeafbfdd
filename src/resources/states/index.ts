// Workflow states as one module (src/http/module.ts, docs/api.md "Workflow states"): its register entry, routes (`/teams/{id}/states`,
// `/states/{id}`), MCP tool, event field map and export part. What a task's status means is its category, which the
// task stores (the trigger pm_task_state keeps it); the layers below the resources read it from records/task-status.ts.
import { z } from "@hono/zod-openapi";
import type { ResourceModule } from "../../http/module";
import { tool } from "../../http/tool";
import { NameOf } from "../../records/names";
import { listStates } from "./operations";
import { stateRecord, WorkflowState } from "./record";
import register from "./register";
import { stateRoutes } from "./routes";
import { statesPart } from "./transfer";

export default {
  name: "states",
  resource: register,
  eventRecords: { state: stateRecord.fields },
  routes: [stateRoutes],
  transfer: statesPart,
  tools: [
    tool({
      name: "list_states",
      rank: 155,
      title: "List a team's workflow states",
      description:
        "A team's states in order (GET /teams/{id}/states): a task's status takes a key or name. Starting work, move the task " +
        "to the first state whose category is started.",
      rest: "GET /teams/{id}/states",
      input: z.object({ id: NameOf("team") }).strict(),
      output: z.object({ states: z.array(WorkflowState) }),
      async run(ctx, { id }) {
        return { states: await listStates(ctx.caller, id) };
      },
    }),
  ],
} satisfies ResourceModule;
