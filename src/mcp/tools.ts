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
import { listEvents, recordEvents } from "../resources/events/operations";
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

/** A page's `limit` and `cursor` as the query string GET would have taken (the operations parse and check them as GET's). */
function pageQuery({ limit, cursor }: { limit?: number; cursor?: string }): URLSearchParams {
  const query = new URLSearchParams();
  if (limit !== undefined) query.set("limit", String(limit));
  if (cursor !== undefined) query.set("cursor", cursor);
  return query;
}
const { limit: Limit } = ListInput.shape;
const Cursor = z.string().optional().describe("pagination.nextCursor of the previous page, for the next one");

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
  tool({
    name: "get_task_history",
    title: "A task's history",
    description:
      "Who changed what on a task (by id or reference `ENG-12`) and when, newest first, as GET /tasks/{id}/history answers it " +
      "({events: [{id, type, actor: {name, type, via}, changes: {<field>: {from, to}}, data, createdAt}], pagination}). " +
      "Pass pagination.nextCursor back as cursor for older events.",
    readOnly: true,
    input: z.object({ id: TaskRef, limit: Limit, cursor: Cursor }).strict(),
    async run(ctx, { id, ...page }) {
      const { events, pagination } = await recordEvents(ctx.caller, "tasks", id, pageQuery(page));
      return { events, pagination };
    },
  }),
  tool({
    name: "list_events",
    title: "What changed since",
    description:
      "The workspace's changes (tasks, projects, milestones, comments, labels, teams, members, …), oldest first in commit " +
      "order, as GET /events answers them ({events: [{id, type, resourceType, resourceId, reference, actor, changes, data, " +
      "createdAt}], pagination}). To follow along: keep the id of the last event you processed and pass it as `after` next " +
      "time; you get exactly the events committed since, none skipped or repeated. Without `after` the stream starts at its " +
      "oldest kept event. While pagination.nextCursor is not null, more is already committed: pass it back as cursor (with " +
      "the same types and resourceId), or call again with `after` the last event's id. Events are kept 30 days; an `after` " +
      "older than that is a GONE error: start again without it.",
    readOnly: true,
    input: z
      .object({
        after: z.string().min(1).optional().describe("Id of the last event you processed (`evt_…`): only events committed after it"),
        types: z
          .array(z.string().min(1))
          .min(1)
          .optional()
          .describe('Only these event types; `<resourceType>.*` matches all of one resource, e.g. ["task.*", "comment.created"]'),
        resourceId: z
          .string()
          .min(1)
          .optional()
          .describe("Only this record's events: an id, or a task or project reference (`ENG-12`, `ENG-P3`)"),
        limit: Limit,
        cursor: Cursor,
      })
      .strict(),
    async run(ctx, { after, types, resourceId, ...page }) {
      const query = pageQuery(page);
      if (after !== undefined) query.set("after", after);
      if (types !== undefined) query.set("types", types.join(","));
      if (resourceId !== undefined) query.set("resourceId", resourceId);
      const { events, pagination } = await listEvents(ctx.caller, query);
      return { events, pagination };
    },
  }),
];
