import { z } from "@hono/zod-openapi";
import type { Caller } from "../auth/caller";
import { acceptedScopes, type Scope, scopeOf } from "../core/scopes";
import { type ListParams, type ListSpec, listBody, parseFields, projectFields } from "../http/list";
import { FieldsQuery, Pagination, paginated } from "../http/schemas";
import { Comment, CommentContent, TaskCommentSelection, targetCommentLists } from "../records/comments";
import { Event } from "../records/events";
import { labelRecord } from "../records/labels";
import { Milestone, MilestoneCreate, type MilestoneCreateInput, milestoneRecord } from "../records/milestones";
import { NameOf } from "../records/names";
import { projectRecord } from "../records/projects";
import { RelationType, TaskRelation } from "../records/task-relations";
import { Task, TaskCreate, type TaskCreateInput, TaskSelection, TaskUpdate, type TaskUpdateInput, taskRecord } from "../records/tasks";
import { teamRecord } from "../records/teams";
import { createComment, listTargetComments } from "../resources/comments/operations";
import { listEvents, recordEvents } from "../resources/events/operations";
import { listLabels } from "../resources/labels/operations";
import { createMilestone, listMilestones } from "../resources/milestones/operations";
import { listProjects } from "../resources/projects/operations";
import { search } from "../resources/search/operations";
import { SEARCH_TYPES, SearchPage, SearchQuery } from "../resources/search/schema";
import { createTask, getTask, listTasks, updateTask } from "../resources/tasks/operations";
import { createRelation, deleteRelation } from "../resources/tasks/relations";
import { listTeams } from "../resources/teams/operations";
import { describeList, type ListArgs, ListInput, listQuery } from "./list-input";

/** What a tool runs with: the request's caller, requiring the tool's scope, as a REST handler has it. */
export interface ToolContext {
  caller: Caller;
}

/**
 * One MCP tool. It stands for one REST operation (`rest`, e.g. `POST /tasks`) and calls that operation's function: its
 * input is the route's zod schema, its answer the route's (`output`, the tool's outputSchema), and its scope the
 * operation's, derived by the one rule of core/scopes.ts, so a key may do through MCP exactly what it may do through REST.
 */
export interface Tool {
  name: string;
  title: string;
  description: string;
  rest: string;
  /** The scope the REST operation names (a 403's `details.requiredScope`). */
  scope: Scope | null;
  /** The scopes any one of which the REST operation needs (a write scope also reads its records). */
  scopes: readonly Scope[] | null;
  /** A GET: the tool changes nothing. */
  readOnly: boolean;
  input: z.ZodType;
  output: z.ZodObject;
  run(ctx: ToolContext, args: never): Promise<Record<string, unknown>>;
}

type ToolSpec<I extends z.ZodType, O extends z.ZodObject> = Pick<Tool, "name" | "title" | "description" | "rest"> & {
  input: I;
  output: O;
  run(ctx: ToolContext, args: z.output<I>): Promise<z.output<O>>;
};

function tool<I extends z.ZodType, O extends z.ZodObject>(spec: ToolSpec<I, O>): Tool {
  const [method, path] = spec.rest.split(" ");
  return { ...spec, scope: scopeOf(method, path), scopes: acceptedScopes(method, path), readOnly: method === "GET" } as Tool;
}

const TaskRef = NameOf("task");

/** A page's `limit` and `cursor` as the query string GET would have taken (the operations parse and check them as GET's). */
function pageQuery({ limit, cursor }: { limit?: number; cursor?: string }): URLSearchParams {
  const query = new URLSearchParams();
  if (limit !== undefined) query.set("limit", String(limit));
  if (cursor !== undefined) query.set("cursor", cursor);
  return query;
}
const { limit: Limit } = ListInput.shape;
const Cursor = z.string().optional().describe("pagination.nextCursor of the previous page, for the next one");
const EventPage = z.object({ events: z.array(Event), pagination: Pagination });

/** What a list tool needs of a record: its list spec (filters, sorts, cursors) and its `fields`-narrowed answer schema. */
interface Listed {
  list: ListSpec;
  selection: z.ZodObject;
}

/** A list tool: GET /<key>'s parameters and page, through the same list spec and query. */
const listTool = (
  key: string,
  record: Listed,
  list: (caller: Caller, params: ListParams) => Promise<Record<string, unknown>[]>,
  about = "",
) =>
  tool({
    name: `list_${key}`,
    title: `List ${key}`,
    description: `The workspace's ${key}, as GET /${key} answers them ({${key}: [...], pagination}).${about} ${describeList(record.list)}`,
    rest: `GET /${key}`,
    input: ListInput,
    output: paginated(key, record.selection),
    async run(ctx, args: ListArgs) {
      const params = await ctx.caller.listParams(record.list, listQuery(args));
      return listBody(key, params, await list(ctx.caller, params));
    },
  });

const everyTaskField = Object.fromEntries(Object.keys(taskRecord.shape).map((name) => [name, true as const]));

export const TOOLS: Tool[] = [
  tool({
    name: "get_task",
    title: "Get a task",
    description:
      "One task by id or reference (`ENG-12`), as GET /tasks/{id} answers it ({task}). Without `fields` it also lists its " +
      "`relations` ([{id, type, task: {id, reference, title, status}}]: `blocked_by` ones are its blockers, with their status; " +
      "blockedByCount counts those not DONE or CANCELED) and subtaskCounts {total, done}. `fields` narrows it, e.g. " +
      "`reference,title,labels{name},relations{type,task{reference,status}}`.",
    rest: "GET /tasks/{id}",
    input: z.object({ id: TaskRef, ...FieldsQuery.shape }).strict(),
    output: z.object({ task: TaskSelection }),
    async run(ctx, { id, fields }) {
      // Every field, relations included: an agent deciding what to work on sees what blocks the task.
      const selection = fields === undefined ? everyTaskField : parseFields(fields, taskRecord.shape);
      const task = await getTask(ctx.caller, id, selection);
      return { task: projectFields(task, selection) };
    },
  }),
  listTool("tasks", taskRecord, listTasks),
  tool({
    name: "create_task",
    title: "Create a task",
    description:
      "Creates a task in a team, as POST /tasks does ({task}, with its new reference). Required: teamId, title. Optional: description " +
      "(Markdown), status, priority, dueDate (YYYY-MM-DD), projectId, milestoneId, parentId (a task of the same team), assigneeId (a " +
      "workspace member), labelIds, customFields. Records go by id or name: teamId the team's prefix (`ENG`), projectId a reference " +
      "(`ENG-P3`), parentId a reference (`ENG-12`), assigneeId an email, labelIds label names (any case).",
    rest: "POST /tasks",
    input: TaskCreate,
    output: z.object({ task: Task }),
    async run(ctx, args) {
      return { task: await createTask(ctx.caller, args as TaskCreateInput) };
    },
  }),
  tool({
    name: "update_task",
    title: "Update a task",
    description:
      "Changes the given fields of a task (by id or reference), as PATCH /tasks/{id} does ({task}). null clears projectId, milestoneId, " +
      "parentId, assigneeId, dueDate; labelIds replaces the set; customFields merges (null removes a key); the team cannot change. " +
      "Records go by id or name: the task and parentId a reference (`ENG-12`), projectId `ENG-P3`, assigneeId an email, labelIds " +
      "label names (any case).",
    rest: "PATCH /tasks/{id}",
    input: z.object({ id: TaskRef, ...TaskUpdate.shape }).strict(),
    output: z.object({ task: Task }),
    async run(ctx, { id, ...changes }) {
      return { task: await updateTask(ctx.caller, id, changes as TaskUpdateInput) };
    },
  }),
  tool({
    name: "link_tasks",
    title: "Relate two tasks",
    description:
      "Relates a task (id or reference) to another, as POST /tasks/{id}/relations does ({relation}, as seen from the first task). " +
      "type: blocks, blocked_by, duplicate_of (the first task becomes CANCELED unless DONE) or related. The same relation again is " +
      "a CONFLICT; a `blocks` that would close a cycle is refused, naming the cycle.",
    rest: "POST /tasks/{id}/relations",
    input: z.object({ id: TaskRef, type: RelationType, taskId: TaskRef.describe("The other task: id or reference") }).strict(),
    output: z.object({ relation: TaskRelation }),
    async run(ctx, { id, type, taskId }) {
      return { relation: await createRelation(ctx.caller, id, { type, taskId }) };
    },
  }),
  tool({
    name: "unlink_tasks",
    title: "Remove a relation",
    description:
      "Removes a relation of a task (id or reference), as DELETE /tasks/{id}/relations/{relationId} does; the relation's id is in " +
      "get_task's `relations`. Answers {deleted: true}.",
    rest: "DELETE /tasks/{id}/relations/{relationId}",
    input: z.object({ id: TaskRef, relationId: z.string().min(1).describe("The relation's id (`rel_…`)") }).strict(),
    output: z.object({ deleted: z.literal(true) }),
    async run(ctx, { id, relationId }) {
      await deleteRelation(ctx.caller, id, relationId);
      return { deleted: true as const };
    },
  }),
  tool({
    name: "add_comment",
    title: "Comment on a task",
    description: "Adds a Markdown comment to a task (by id or reference), as POST /comments with taskId does ({comment}).",
    rest: "POST /comments",
    input: z.object({ taskId: TaskRef, ...CommentContent.shape }).strict(),
    output: z.object({ comment: Comment }),
    async run(ctx, { taskId, content }) {
      return { comment: await createComment(ctx.caller, { taskId, content }) };
    },
  }),
  tool({
    name: "list_task_comments",
    title: "A task's comments",
    description:
      "The comments on one task (by id or reference `ENG-12`), oldest first, as GET /tasks/{id}/comments answers them ({comments: " +
      "[{id, content (Markdown), author: {id, name, email}, createdAt, …}], pagination}). An unknown task is NOT_FOUND. " +
      describeList(targetCommentLists.task),
    rest: "GET /tasks/{id}/comments",
    input: z.object({ id: TaskRef, ...ListInput.shape }).strict(),
    output: paginated("comments", TaskCommentSelection),
    async run(ctx, { id, ...list }) {
      const params = await ctx.caller.listParams(targetCommentLists.task, listQuery(list));
      return listBody("comments", params, await listTargetComments(ctx.caller, "task", id, params));
    },
  }),
  tool({
    name: "search",
    title: "Search",
    description:
      "Full-text search over task titles and descriptions and project and milestone names and descriptions, as GET /search " +
      "answers it ({results: [{type, id, reference?, title, snippet, score}], pagination}); an exact reference (`ENG-12`) comes " +
      "first; matched words are wrapped in « » in `snippet`. Pass `pagination.nextCursor` back as `cursor` for the next page.",
    rest: "GET /search",
    input: z
      .object({
        q: SearchQuery.shape.q,
        types: z.array(z.enum(SEARCH_TYPES)).min(1).optional().describe("Which records (default: all three)"),
        limit: z.number().int().min(1).max(250).optional().describe("1..250, default 50"),
        cursor: SearchQuery.shape.cursor,
      })
      .strict(),
    output: SearchPage,
    async run(ctx, { q, types = [...SEARCH_TYPES], limit = 50, cursor }) {
      return search(ctx.caller, { q, types: [...new Set(types)], limit, cursor });
    },
  }),
  listTool("teams", teamRecord, listTeams),
  listTool("projects", projectRecord, listProjects),
  listTool(
    "milestones",
    milestoneRecord,
    listMilestones,
    ' One project\'s: filter {"eq": {"projectId": "<project id>"}}. Status is PLANNED, IN_PROGRESS or DONE.',
  ),
  tool({
    name: "create_milestone",
    title: "Create a milestone",
    description:
      "Creates a milestone in a project, as POST /milestones does ({milestone}). Required: projectId (id or reference `ENG-P3`), " +
      "name. Optional: description (Markdown), targetDate (YYYY-MM-DD), status (PLANNED, the default, IN_PROGRESS or DONE), " +
      "customFields. A task joins it with update_task's milestoneId (a milestone of the task's project).",
    rest: "POST /milestones",
    input: MilestoneCreate,
    output: z.object({ milestone: Milestone }),
    async run(ctx, input) {
      return { milestone: await createMilestone(ctx.caller, input as MilestoneCreateInput) };
    },
  }),
  listTool(
    "labels",
    labelRecord,
    listLabels,
    " Tasks name labels by these names (any case) in create_task's and update_task's `labelIds`.",
  ),
  tool({
    name: "get_task_history",
    title: "A task's history",
    description:
      "Who changed what on a task (by id or reference `ENG-12`) and when, newest first, as GET /tasks/{id}/history answers it " +
      "({events: [{id, type, actor: {name, type, via}, changes: {<field>: {from, to}}, data, createdAt}], pagination}). " +
      "Pass pagination.nextCursor back as cursor for older events.",
    rest: "GET /tasks/{id}/history",
    input: z.object({ id: TaskRef, limit: Limit, cursor: Cursor }).strict(),
    output: EventPage,
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
    rest: "GET /events",
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
    output: EventPage,
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
