import { z } from "@hono/zod-openapi";
import type { Caller } from "../auth/caller";
import { type ListParams, type ListSpec, listBody, parseFields, projectFields } from "../http/list";
import { FieldsQuery } from "../http/schemas";
import { CommentContent } from "../records/comments";
import { labelRecord } from "../records/labels";
import { projectRecord } from "../records/projects";
import { TaskCreate, type TaskCreateInput, TaskUpdate, type TaskUpdateInput, taskRecord } from "../records/tasks";
import { teamRecord } from "../records/teams";
import { createComment } from "../resources/comments/operations";
import { listLabels } from "../resources/labels/operations";
import { listProjects } from "../resources/projects/operations";
import { search } from "../resources/search/operations";
import { SEARCH_TYPES, SearchQuery } from "../resources/search/schema";
import { createTask, getTask, listTasks, updateTask } from "../resources/tasks/operations";
import { listTeams } from "../resources/teams/operations";
import { describeList, type ListArgs, ListInput, listQuery } from "./list-input";

/** What a tool runs with: the request's caller, as a REST handler has it. */
export interface ToolContext {
  caller: Caller;
}

/** One MCP tool: its input is a REST route's zod schema, its body the route's service or query call. */
export interface Tool {
  name: string;
  title: string;
  description: string;
  input: z.ZodType;
  readOnly: boolean;
  run(ctx: ToolContext, args: never): Promise<Record<string, unknown>>;
}

const tool = <S extends z.ZodType>(
  t: Omit<Tool, "input" | "run"> & { input: S; run(ctx: ToolContext, args: z.output<S>): Promise<Record<string, unknown>> },
): Tool => t;

const TaskRef = z.string().min(1).describe("Task id or reference (`ENG-12`, any case)");

/** A list tool: GET /<key>'s parameters and page, through the same list spec and query. */
const listTool = (key: string, spec: ListSpec, list: (caller: Caller, params: ListParams) => Promise<Record<string, unknown>[]>) =>
  tool({
    name: `list_${key}`,
    title: `List ${key}`,
    description: `The workspace's ${key}, as GET /${key} answers them ({${key}: [...], pagination}). ${describeList(spec)}`,
    readOnly: true,
    input: ListInput,
    async run(ctx, args: ListArgs) {
      const params = await ctx.caller.listParams(spec, listQuery(args));
      return listBody(key, params, await list(ctx.caller, params));
    },
  });

export const TOOLS: Tool[] = [
  tool({
    name: "get_task",
    title: "Get a task",
    description:
      "One task by id or reference (`ENG-12`), as GET /tasks/{id} answers it ({task}); `fields` narrows it, e.g. `reference,title,labels{name}`.",
    readOnly: true,
    input: z.object({ id: TaskRef, ...FieldsQuery.shape }).strict(),
    async run(ctx, { id, fields }) {
      const selection = parseFields(fields, taskRecord.shape);
      const task = await getTask(ctx.caller, id, selection);
      return { task: projectFields(task, selection) };
    },
  }),
  listTool("tasks", taskRecord.list, listTasks),
  tool({
    name: "create_task",
    title: "Create a task",
    description:
      "Creates a task in a team, as POST /tasks does ({task}, with its new reference). Required: teamId, title. Optional: description " +
      "(Markdown), status, priority, dueDate (YYYY-MM-DD), projectId (id or `ENG-P3`), milestoneId, parentId (a task of the same team, " +
      "id or `ENG-12`), assigneeId (a workspace member), labelIds, customFields.",
    readOnly: false,
    input: TaskCreate,
    async run(ctx, input) {
      return { task: await createTask(ctx.caller, input as TaskCreateInput) };
    },
  }),
  tool({
    name: "update_task",
    title: "Update a task",
    description:
      "Changes the given fields of a task (by id or reference), as PATCH /tasks/{id} does ({task}). null clears projectId, milestoneId, " +
      "parentId, assigneeId, dueDate; labelIds replaces the set; customFields merges (null removes a key); the team cannot change.",
    readOnly: false,
    input: z.object({ id: TaskRef, ...TaskUpdate.shape }).strict(),
    async run(ctx, { id, ...changes }) {
      return { task: await updateTask(ctx.caller, id, changes as TaskUpdateInput) };
    },
  }),
  tool({
    name: "add_comment",
    title: "Comment on a task",
    description: "Adds a Markdown comment to a task (by id or reference), as POST /comments with taskId does ({comment}).",
    readOnly: false,
    input: z.object({ taskId: TaskRef, ...CommentContent.shape }).strict(),
    async run(ctx, { taskId, content }) {
      return { comment: await createComment(ctx.caller, { taskId, content }) };
    },
  }),
  tool({
    name: "search",
    title: "Search",
    description:
      "Full-text search over task titles and descriptions and project and milestone names and descriptions, as GET /search " +
      "answers it ({results: [{type, id, reference?, title, snippet, score}], pagination}); an exact reference (`ENG-12`) comes " +
      "first; matched words are wrapped in « » in `snippet`. Pass `pagination.nextCursor` back as `cursor` for the next page.",
    readOnly: true,
    input: z
      .object({
        q: SearchQuery.shape.q,
        types: z.array(z.enum(SEARCH_TYPES)).min(1).optional().describe("Which records (default: all three)"),
        limit: z.number().int().min(1).max(250).optional().describe("1..250, default 50"),
        cursor: SearchQuery.shape.cursor,
      })
      .strict(),
    async run(ctx, { q, types = [...SEARCH_TYPES], limit = 50, cursor }) {
      return search(ctx.caller, { q, types: [...new Set(types)], limit, cursor });
    },
  }),
  listTool("teams", teamRecord.list, listTeams),
  listTool("projects", projectRecord.list, listProjects),
  listTool("labels", labelRecord.list, listLabels),
];
