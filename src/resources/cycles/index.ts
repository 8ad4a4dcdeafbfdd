// Cycles as one module (src/http/module.ts, docs/api.md "Cycles"): a team's time-boxed iterations, its register entry,
// routes (`/cycles`, `/cycles/{id}/history`, `/cycles/{id}/burnup.svg`, `/teams/{id}/velocity`), MCP tools, events'
// field map and export part. Tasks name their cycle by `cycleId` (src/resources/tasks/record.ts); the rollover runs from the
// Cron Trigger (src/index.ts).
import { z } from "@hono/zod-openapi";
import type { ResourceModule } from "../../http/module";
import { listTool, tool } from "../../http/tool";
import { NameOf } from "../../records/names";
import { getCycle, listCycles } from "./operations";
import { Cycle, cycleRecord } from "./record";
import register from "./register";
import { cycleRoutes } from "./routes";
import { cyclesPart } from "./transfer";

export default {
  name: "cycles",
  resource: register,
  eventRecords: { cycle: cycleRecord.fields },
  routes: [cycleRoutes],
  transfer: cyclesPart,
  tools: [
    { ...listTool("cycles", cycleRecord, listCycles), rank: 360 },
    tool({
      name: "get_cycle",
      rank: 370,
      title: "Get a cycle",
      description: "A cycle and its progress (GET /cycles/{id}).",
      rest: "GET /cycles/{id}",
      input: z.object({ id: NameOf("cycle") }).strict(),
      output: z.object({ cycle: Cycle }),
      async run(ctx, { id }) {
        return { cycle: await getCycle(ctx.caller, id) };
      },
    }),
  ],
} satisfies ResourceModule;
