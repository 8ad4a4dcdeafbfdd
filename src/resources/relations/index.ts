// Relations between tasks as one module (src/http/module.ts): their register entry, routes (under the task:
// `/tasks/{id}/relations`) and MCP tools. The task's answer embeds them (src/resources/relations/record.ts, a task field).
import { z } from "@hono/zod-openapi";
import type { ResourceModule } from "../../http/module";
import { Deleted, tool } from "../../http/tool";
import { NameOf } from "../../records/names";
import { createRelation, deleteRelation } from "./operations";
import { RELATION_ID, RelationType, storedRelationRecord, TaskRelation } from "./record";
import register from "./register";
import { taskRelationRoutes } from "./routes";
import { relationsPart } from "./transfer";

const TaskRef = NameOf("task");

export default {
  name: "relations",
  resource: register,
  eventRecords: { task_relation: storedRelationRecord.fields },
  routes: [taskRelationRoutes],
  transfer: relationsPart,
  tools: [
    tool({
      name: "link_tasks",
      rank: 60,
      title: "Relate two tasks",
      description:
        "Relates a task to another (POST /tasks/{id}/relations). duplicate_of cancels the first task unless completed; a `blocks` " +
        "closing a cycle is refused.",
      rest: "POST /tasks/{id}/relations",
      input: z.object({ id: TaskRef, type: RelationType, taskId: TaskRef.describe("The other task: id or reference") }).strict(),
      output: z.object({ relation: TaskRelation }),
      async run(ctx, { id, type, taskId }) {
        return { relation: await createRelation(ctx.caller, id, { type, taskId }) };
      },
    }),
    tool({
      name: "unlink_tasks",
      rank: 70,
      title: "Remove a relation",
      description: "Removes a task's relation (DELETE /tasks/{id}/relations/{relationId}); get_task lists them.",
      rest: "DELETE /tasks/{id}/relations/{relationId}",
      input: z.object({ id: TaskRef, relationId: NameOf(RELATION_ID) }).strict(),
      output: Deleted,
      async run(ctx, { id, relationId }) {
        await deleteRelation(ctx.caller, id, relationId);
        return { deleted: true as const };
      },
    }),
  ],
} satisfies ResourceModule;
