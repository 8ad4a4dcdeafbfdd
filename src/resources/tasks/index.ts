// Tasks as one module (src/http/module.ts): the register entry, routes and MCP tools.
import { z } from "@hono/zod-openapi";
import type { ResourceModule } from "../../http/module";
import { FieldsQuery } from "../../http/route-schemas";
import { deleteTool, listTool, tool } from "../../http/tool";
import { ListInput, loosely } from "../../http/tool-input";
import { NameOf } from "../../records/names";
import { parseFields, projectFields } from "../../store/list";
import { orNull } from "../../store/schemas";
import { bulkTasks, TaskBulk, type TaskBulkInput, TaskBulkResult, TaskBulkSet } from "./bulk";
import { taskBulkRoutes } from "./bulk-routes";
import { taskClaimRoutes } from "./claim-routes";
import { claimNext, claimTask, releaseTask } from "./claims";
import { LeaseSeconds, TaskClaim } from "./claims-record";
import { createTask, deleteTask, getTask, listTasks, updateTask } from "./operations";
import { Task, TaskCreate, type TaskCreateInput, TaskSelection, TaskUpdate, type TaskUpdateInput, taskRecord } from "./record";
import register from "./register";
import { taskRoutes } from "./routes";

const TaskRef = NameOf("task");
const everyTaskField = Object.fromEntries(Object.keys(taskRecord.shape).map((name) => [name, true as const]));

export default {
  name: "tasks",
  resource: register,
  eventRecords: { task: taskRecord.fields },
  routes: [taskRoutes, taskClaimRoutes, taskBulkRoutes],
  tools: [
    tool({
      name: "get_task",
      title: "Get a task",
      description:
        "A task (GET /tasks/{id}). Without `fields`: every field, with its `relations` (`blocked_by`: its blockers), links and subtaskCounts.",
      rest: "GET /tasks/{id}",
      rank: 10,
      input: z.object({ id: TaskRef, ...FieldsQuery.shape }).strict(),
      output: z.object({ task: TaskSelection }),
      async run(ctx, { id, fields }) {
        // Every field, relations and links included: an agent deciding what to work on sees what blocks the task.
        const selection = fields === undefined ? everyTaskField : parseFields(fields, taskRecord.shape);
        const task = await getTask(ctx.caller, id, selection);
        return { task: projectFields(task, selection) };
      },
    }),
    { ...listTool("tasks", taskRecord, listTasks), rank: 20 },
    tool({
      name: "create_task",
      rank: 30,
      title: "Create a task",
      description: "Creates a task in a team (POST /tasks).",
      rest: "POST /tasks",
      input: TaskCreate,
      output: z.object({ task: Task }),
      async run(ctx, args) {
        return { task: await createTask(ctx.caller, args as TaskCreateInput) };
      },
    }),
    tool({
      name: "update_task",
      rank: 40,
      title: "Update a task",
      description:
        "Changes the given fields of a task (PATCH /tasks/{id}): null clears a field, labelIds replaces the set, customFields " +
        "merges (null removes a key).",
      rest: "PATCH /tasks/{id}",
      input: z.object({ id: TaskRef, ...TaskUpdate.shape }).strict(),
      output: z.object({ task: Task }),
      async run(ctx, { id, ...changes }) {
        return { task: await updateTask(ctx.caller, id, changes as TaskUpdateInput) };
      },
    }),
    { ...deleteTool("task", "tasks", TaskRef, deleteTask, " Its subtasks and comments go with it."), rank: 50 },
    tool({
      name: "bulk_update_tasks",
      rank: 55,
      title: "Change many tasks",
      description:
        "Changes or deletes many tasks, all or nothing (POST /tasks/bulk): by `ids` or list_tasks' `filter`. `dryRun`: the changes, unwritten.",
      rest: "POST /tasks/bulk",
      // Said briefly (the tool's zod check holds the rest): ids and labels by id or name, `set` as update_task's fields.
      input: TaskBulk.extend({
        ids: loosely(TaskBulk.shape.ids),
        filter: ListInput.shape.filter,
        set: loosely(TaskBulkSet)
          .optional()
          .describe("update_task's status, priority, assigneeId, delegateId, projectId, milestoneId, cycleId, dueDate, estimate"),
        addLabelIds: loosely(TaskBulk.shape.addLabelIds),
        removeLabelIds: loosely(TaskBulk.shape.removeLabelIds),
      }),
      output: TaskBulkResult,
      run: (ctx, args) => bulkTasks(ctx.caller, args as TaskBulkInput),
    }),
    tool({
      name: "claim_task",
      rank: 290,
      title: "Claim a task",
      description:
        "Takes a task for a lease so no other worker does (POST /tasks/{id}/claim, /tasks/claim): by `id` (renews your own), or the " +
        "first free match of `filter` as in list_tasks (task null when none). Another's live claim is CONFLICT.",
      rest: "POST /tasks/claim",
      input: z
        .object({ id: TaskRef.optional(), filter: ListInput.shape.filter, sort: ListInput.shape.sort, leaseSeconds: LeaseSeconds })
        .strict()
        .refine((args) => (args.id === undefined) !== (args.filter === undefined), "Give either id or filter"),
      output: z.object({ task: orNull(Task), claim: orNull(TaskClaim) }),
      async run(ctx, { id, leaseSeconds, ...filterSort }) {
        const claimed =
          id === undefined ? await claimNext(ctx.caller, { ...filterSort, leaseSeconds }) : await claimTask(ctx.caller, id, leaseSeconds);
        return claimed ?? { task: null, claim: null };
      },
    }),
    tool({
      name: "release_task",
      rank: 300,
      title: "Release a task",
      description: "Releases your claim of a task (DELETE /tasks/{id}/claim); a workspace ADMIN may release anyone's.",
      rest: "DELETE /tasks/{id}/claim",
      input: z.object({ id: TaskRef }).strict(),
      output: z.object({ released: z.literal(true) }),
      async run(ctx, { id }) {
        await releaseTask(ctx.caller, id);
        return { released: true as const };
      },
    }),
  ],
} satisfies ResourceModule;
