// Tasks as one module (src/http/module.ts): the register entry, routes and MCP tools.
import { z } from "@hono/zod-openapi";
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { FieldsQuery } from "../../http/schemas";
import { deleteTool, listTool, tool } from "../../http/tool";
import { NameOf } from "../../records/names";
import { Task, TaskCreate, type TaskCreateInput, TaskSelection, TaskUpdate, type TaskUpdateInput, taskRecord } from "../../records/tasks";
import { parseFields, projectFields } from "../../store/list";
import { createTask, deleteTask, getTask, listTasks, updateTask } from "./operations";
import { taskRoutes } from "./routes";

const TaskRef = NameOf("task");
const everyTaskField = Object.fromEntries(Object.keys(taskRecord.shape).map((name) => [name, true as const]));

export default {
  name: "tasks",
  resource: RESOURCES.tasks,
  routes: [taskRoutes],
  tools: [
    tool({
      name: "get_task",
      title: "Get a task",
      description:
        "A task (GET /tasks/{id}). Without `fields`: every field, with its `relations` (`blocked_by`: its blockers), links and subtaskCounts.",
      rest: "GET /tasks/{id}",
      input: z.object({ id: TaskRef, ...FieldsQuery.shape }).strict(),
      output: z.object({ task: TaskSelection }),
      async run(ctx, { id, fields }) {
        // Every field, relations and links included: an agent deciding what to work on sees what blocks the task.
        const selection = fields === undefined ? everyTaskField : parseFields(fields, taskRecord.shape);
        const task = await getTask(ctx.caller, id, selection);
        return { task: projectFields(task, selection) };
      },
    }),
    { ...listTool("tasks", taskRecord, listTasks), after: "get_task" },
    tool({
      name: "create_task",
      after: "list_tasks",
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
      after: "create_task",
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
    { ...deleteTool("task", "tasks", TaskRef, deleteTask, " Its subtasks and comments go with it."), after: "update_task" },
  ],
} satisfies ResourceModule;
