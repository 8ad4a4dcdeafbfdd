import { z } from "@hono/zod-openapi";
import type { Caller } from "../auth/caller";
import { acceptedScopes, type Scope, scopeOf } from "../core/scopes";
import { FieldsQuery, Pagination, paginated } from "../http/schemas";
import {
  ActivityCreate,
  AgentActivity,
  AgentActivitySelection,
  AgentSessionSelection,
  activityRecord,
  sessionRecord,
} from "../records/agent-sessions";
import { type AttachmentDto, attachmentRecord, contentPath } from "../records/attachments";
import { Comment, CommentContent, TaskCommentSelection, targetCommentLists } from "../records/comments";
import { Event } from "../records/events";
import { Label, LabelCreate, type LabelCreateInput, LabelUpdate, type LabelUpdateInput, labelRecord } from "../records/labels";
import { Milestone, MilestoneCreate, type MilestoneCreateInput, milestoneRecord } from "../records/milestones";
import { NameOf } from "../records/names";
import {
  Project,
  ProjectCreate,
  type ProjectCreateInput,
  ProjectUpdate,
  type ProjectUpdateInput,
  projectRecord,
} from "../records/projects";
import { LeaseSeconds, TaskClaim } from "../records/task-claims";
import { TaskLink, TaskLinkCreate } from "../records/task-links";
import { RelationType, TaskRelation } from "../records/task-relations";
import { Task, TaskCreate, type TaskCreateInput, TaskSelection, TaskUpdate, type TaskUpdateInput, taskRecord } from "../records/tasks";
import { teamRecord } from "../records/teams";
import { workspaceUserRecord } from "../records/users";
import { getSession, listActivities, listSessions, postActivity } from "../resources/agent-sessions";
import { listAttachments } from "../resources/attachments/operations";
import { createComment, deleteComment, listTargetComments } from "../resources/comments/operations";
import { listEvents, recordEvents } from "../resources/events/operations";
import { createLabel, deleteLabel, listLabels, updateLabel } from "../resources/labels/operations";
import { createMilestone, listMilestones } from "../resources/milestones/operations";
import { createProject, listProjects, updateProject } from "../resources/projects/operations";
import { search } from "../resources/search/operations";
import { SEARCH_TYPES, SearchPage, SearchQuery } from "../resources/search/schema";
import { claimNext, claimTask, releaseTask } from "../resources/tasks/claims";
import { createTask, deleteTask, getTask, listTasks, updateTask } from "../resources/tasks/operations";
import { createRelation, deleteRelation } from "../resources/tasks/relations";
import { addLink } from "../resources/tasks/url-links";
import { listTeams } from "../resources/teams/operations";
import { listUsers } from "../resources/users/operations";
import { type ListParams, type ListSpec, listBody, parseFields, projectFields } from "../store/list";
import { orNull } from "../store/schemas";
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
  /** A DELETE: what it removes is gone. */
  destructive: boolean;
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
  return {
    ...spec,
    scope: scopeOf(method, path),
    scopes: acceptedScopes(method, path),
    readOnly: method === "GET",
    destructive: method === "DELETE",
  } as Tool;
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
const Cursor = z.string().optional().describe("pagination.nextCursor of the previous page");
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
    description: `The workspace's ${key} (GET /${key}).${about} ${describeList(record.list)}`,
    rest: `GET /${key}`,
    input: ListInput,
    output: paginated(key, record.selection),
    async run(ctx, args: ListArgs) {
      const params = await ctx.caller.listParams(record.list, listQuery(args));
      return listBody(key, params, await list(ctx.caller, params));
    },
  });

const Deleted = z.object({ deleted: z.literal(true) });

/** A DELETE /<key>/{id} tool: the record by id or name, answered {deleted: true} (REST's 204 has no body). */
const deleteTool = (noun: string, key: string, ref: z.ZodType<string>, remove: (caller: Caller, id: string) => Promise<void>, about = "") =>
  tool({
    name: `delete_${noun}`,
    title: `Delete a ${noun}`,
    description: `Deletes a ${noun} (DELETE /${key}/{id}).${about}`,
    rest: `DELETE /${key}/{id}`,
    input: z.object({ id: ref }).strict(),
    output: Deleted,
    async run(ctx, { id }) {
      await remove(ctx.caller, id);
      return { deleted: true as const };
    },
  });

/** A POST /<key> tool: the REST body as its input, answered `{<noun>: record}` as REST's 201 is. */
const createTool = <In>(
  noun: string,
  key: string,
  body: z.ZodType,
  record: z.ZodType,
  create: (caller: Caller, input: In) => Promise<unknown>,
  description: string,
) =>
  tool({
    name: `create_${noun}`,
    title: `Create a ${noun}`,
    description,
    rest: `POST /${key}`,
    input: body,
    output: z.object({ [noun]: record }),
    async run(ctx, input) {
      return { [noun]: await create(ctx.caller, input as In) };
    },
  });

/** A PATCH /<key>/{id} tool: the record by id or name and the REST body's fields, answered `{<noun>: record}`. */
const updateTool = <In>(
  noun: string,
  key: string,
  ref: z.ZodType<string>,
  changes: z.ZodObject,
  record: z.ZodType,
  update: (caller: Caller, id: string, input: In) => Promise<unknown>,
  description: string,
) =>
  tool({
    name: `update_${noun}`,
    title: `Update a ${noun}`,
    description,
    rest: `PATCH /${key}/{id}`,
    input: z.object({ id: ref, ...changes.shape }).strict(),
    output: z.object({ [noun]: record }),
    async run(ctx, { id, ...fields }) {
      return { [noun]: await update(ctx.caller, id as string, fields as In) };
    },
  });

const everyTaskField = Object.fromEntries(Object.keys(taskRecord.shape).map((name) => [name, true as const]));

export const TOOLS: Tool[] = [
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
  listTool("tasks", taskRecord, listTasks),
  tool({
    name: "create_task",
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
  deleteTool("task", "tasks", TaskRef, deleteTask, " Its subtasks and comments go with it."),
  // Delegation (docs/agents.md): an agent lists its sessions, reads one with its activities, and posts to it.
  tool({
    name: "list_sessions",
    title: "List agent sessions",
    description: `Agent sessions (GET /agent-sessions): an agent sees its own. ${describeList(sessionRecord.list)}`,
    rest: "GET /agent-sessions",
    input: ListInput,
    output: paginated("sessions", AgentSessionSelection),
    async run(ctx, args: ListArgs) {
      const params = await ctx.caller.listParams(sessionRecord.list, listQuery(args));
      return listBody("sessions", params, await listSessions(ctx.caller, params));
    },
  }),
  tool({
    name: "get_session",
    title: "Get an agent session",
    description: "A session with its activities, oldest first (GET /agent-sessions/{id} and …/activities).",
    rest: "GET /agent-sessions/{id}",
    input: z.object({ id: NameOf("agentSession"), limit: Limit, cursor: Cursor }).strict(),
    output: z.object({ session: AgentSessionSelection, ...paginated("activities", AgentActivitySelection).shape }),
    async run(ctx, { id, ...page }) {
      const params = await ctx.caller.listParams(activityRecord.list, pageQuery(page));
      const [session, activities] = await Promise.all([getSession(ctx.caller, id), listActivities(ctx.caller, id, params)]);
      return { session, ...(await listBody("activities", params, activities)) };
    },
  }),
  tool({
    name: "post_activity",
    title: "Post to an agent session",
    description: "Posts to a session (POST /agent-sessions/{id}/activities): its agent a thought, action, elicitation, response or error.",
    rest: "POST /agent-sessions/{id}/activities",
    input: z.object({ id: NameOf("agentSession"), ...ActivityCreate.shape }).strict(),
    output: z.object({ activity: AgentActivity }),
    async run(ctx, { id, ...body }) {
      return { activity: await postActivity(ctx.caller, id, body) };
    },
  }),
  tool({
    name: "claim_task",
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
  tool({
    name: "link_tasks",
    title: "Relate two tasks",
    description:
      "Relates a task to another (POST /tasks/{id}/relations). duplicate_of cancels the first task unless DONE; a `blocks` " +
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
    title: "Remove a relation",
    description: "Removes a task's relation (DELETE /tasks/{id}/relations/{relationId}); get_task lists them.",
    rest: "DELETE /tasks/{id}/relations/{relationId}",
    input: z.object({ id: TaskRef, relationId: NameOf("relation") }).strict(),
    output: Deleted,
    async run(ctx, { id, relationId }) {
      await deleteRelation(ctx.caller, id, relationId);
      return { deleted: true as const };
    },
  }),
  tool({
    name: "add_link",
    title: "Add a link",
    description: "Adds a URL to a task (POST /tasks/{id}/links); the same URL again returns its link.",
    rest: "POST /tasks/{id}/links",
    input: z.object({ id: TaskRef, ...TaskLinkCreate.shape }).strict(),
    output: z.object({ link: TaskLink }),
    async run(ctx, { id, ...body }) {
      return { link: (await addLink(ctx.caller, id, body)).link };
    },
  }),
  tool({
    name: "add_comment",
    title: "Comment on a task",
    description: "Adds a Markdown comment to a task (POST /comments).",
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
    description: `A task's comments, oldest first (GET /tasks/{id}/comments). ${describeList(targetCommentLists.task)}`,
    rest: "GET /tasks/{id}/comments",
    input: z.object({ id: TaskRef, ...ListInput.shape }).strict(),
    output: paginated("comments", TaskCommentSelection),
    async run(ctx, { id, ...list }) {
      const params = await ctx.caller.listParams(targetCommentLists.task, listQuery(list));
      return listBody("comments", params, await listTargetComments(ctx.caller, "task", id, params));
    },
  }),
  tool({
    name: "list_attachments",
    title: "Task files",
    description: "Files of a task and its comments (GET /tasks/{id}/attachments); GET `path` downloads.",
    rest: "GET /tasks/{id}/attachments",
    input: z.object({ id: TaskRef, cursor: Cursor }).strict(),
    output: z.object({
      attachments: z.array(z.object({ id: z.string(), filename: z.string(), size: z.number(), path: z.string() })),
      pagination: Pagination,
    }),
    async run(ctx, { id, cursor }) {
      const params = await ctx.caller.listParams(attachmentRecord.list, pageQuery({ cursor }));
      const page = await listBody("attachments", params, await listAttachments(ctx.caller, id, params));
      const attachments = (page.attachments as AttachmentDto[]).map((a) => ({
        id: a.id,
        filename: a.filename,
        size: a.size,
        path: contentPath(a.id),
      }));
      return { attachments, pagination: page.pagination };
    },
  }),
  deleteTool("comment", "comments", NameOf("comment"), deleteComment, " Only its author or a workspace ADMIN/OWNER may."),
  tool({
    name: "search",
    title: "Search",
    description:
      "Full-text search of tasks, projects and milestones (GET /search); an exact reference (`ENG-12`) comes first; `snippet` " +
      "wraps matched words in « ».",
    rest: "GET /search",
    input: z
      .object({
        q: SearchQuery.shape.q,
        types: z.array(z.enum(SEARCH_TYPES)).min(1).optional().describe("Which records (default: all three)"),
        limit: z.number().int().min(1).max(250).optional(),
        cursor: SearchQuery.shape.cursor,
      })
      .strict(),
    output: SearchPage,
    async run(ctx, { q, types = [...SEARCH_TYPES], limit = 50, cursor }) {
      return search(ctx.caller, { q, types: [...new Set(types)], limit, cursor });
    },
  }),
  listTool("users", workspaceUserRecord, listUsers, ' Find one by name or email: filter {"contains": {"name": "ana"}}.'),
  listTool("teams", teamRecord, listTeams),
  listTool("projects", projectRecord, listProjects),
  createTool<ProjectCreateInput>(
    "project",
    "projects",
    ProjectCreate,
    Project,
    createProject,
    "Creates a project in a team (POST /projects); its reference is `<PREFIX>-P<n>`.",
  ),
  updateTool<ProjectUpdateInput>(
    "project",
    "projects",
    NameOf("project"),
    ProjectUpdate,
    Project,
    updateProject,
    "Changes the given fields of a project (PATCH /projects/{id}): null clears a field, labelIds replaces the set.",
  ),
  listTool("milestones", milestoneRecord, listMilestones, ' One project\'s: filter {"eq": {"projectId": "ENG-P3"}}.'),
  createTool<MilestoneCreateInput>(
    "milestone",
    "milestones",
    MilestoneCreate,
    Milestone,
    createMilestone,
    "Creates a milestone in a project (POST /milestones); update_task's milestoneId puts a task in it.",
  ),
  listTool("labels", labelRecord, listLabels),
  createTool<LabelCreateInput>(
    "label",
    "labels",
    LabelCreate,
    Label,
    createLabel,
    "Creates a label (POST /labels); its name is unique in the workspace, in any case.",
  ),
  updateTool<LabelUpdateInput>(
    "label",
    "labels",
    NameOf("label"),
    LabelUpdate,
    Label,
    updateLabel,
    "Renames or recolours a label (PATCH /labels/{id}).",
  ),
  deleteTool("label", "labels", NameOf("label"), deleteLabel, " Its tasks and projects stay, without it."),
  tool({
    name: "get_task_history",
    title: "A task's history",
    description: "A task's changes, newest first (GET /tasks/{id}/history).",
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
      "The workspace's changes, oldest first in commit order (GET /events). To follow along, pass the last event you processed " +
      "as `after` next time. A non-null pagination.nextCursor means more is committed. An `after` older than 30 days is GONE.",
    rest: "GET /events",
    input: z
      .object({
        after: z.string().min(1).optional().describe("Id of the last event you processed (`evt_…`)"),
        types: z.array(z.string().min(1)).min(1).optional().describe("Event types; `task.*` matches all of one resource"),
        resourceId: z.string().min(1).optional().describe("One record's events: an id or a reference (`ENG-12`, `ENG-P3`)"),
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
