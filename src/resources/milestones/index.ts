// Milestones as one module (src/http/module.ts): the register entry, routes and MCP tools.
import type { ResourceModule } from "../../http/module";
import { createTool, listTool } from "../../http/tool";
import { createMilestone, listMilestones } from "./operations";
import { Milestone, MilestoneCreate, type MilestoneCreateInput, milestoneRecord } from "./record";
import register from "./register";
import { milestoneRoutes } from "./routes";

export default {
  name: "milestones",
  resource: register,
  eventRecords: { milestone: milestoneRecord.fields },
  routes: [milestoneRoutes],
  tools: [
    {
      ...listTool("milestones", milestoneRecord, listMilestones, ' One project\'s: filter {"eq": {"projectId": "ENG-P3"}}.'),
      rank: 190,
    },
    {
      ...createTool<MilestoneCreateInput>(
        "milestone",
        "milestones",
        MilestoneCreate,
        Milestone,
        createMilestone,
        "Creates a milestone in a project (POST /milestones); update_task's milestoneId puts a task in it.",
      ),
      rank: 200,
    },
  ],
} satisfies ResourceModule;
