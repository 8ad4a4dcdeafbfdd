import { type ArgsDef, defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs, oneOf, repeated } from "../argv";
import { UsageError } from "../errors";
import { addFilter, listArgs, listQuery } from "../list";
import { type Column, fieldColumns, printJson, printNextCursor, printRecord, printTable } from "../output";
import { openSession, type Session, unwrap } from "../session";
import { HISTORY_COLUMNS } from "./events";
import { view } from "./task-view";

type Task = Schemas["Task"];
type TaskSelection = Schemas["TaskSelection"];

// Checked here too, so that a typo is a usage error before any request; `satisfies` keeps them the API's values.
const STATUSES = ["BACKLOG", "TODO", "IN_PROGRESS", "IN_REVIEW", "DONE", "CANCELED"] as const satisfies readonly Schemas["TaskStatus"][];
const PRIORITIES = ["NONE", "LOW", "MEDIUM", "HIGH", "URGENT"] as const satisfies readonly Schemas["TaskPriority"][];

const NONE = "none";
const refArg = { type: "positional", description: "Task reference (ENG-12, any case) or id", valueHint: "ref", required: true } as const;

/** The options of a task's fields, shared by create and update (`none` clears a link or the due date). */
const fieldArgs = {
  title: { type: "string", description: "Title" },
  description: { type: "string", description: "Markdown description" },
  priority: { type: "string", valueHint: PRIORITIES.join("|"), description: "Priority" },
  status: { type: "string", valueHint: STATUSES.join("|"), description: "Status" },
  assignee: { type: "string", valueHint: "email|user id|me|none", description: "Assignee" },
  project: { type: "string", valueHint: "ENG-P3|id|none", description: "Project of the task's team" },
  parent: { type: "string", valueHint: "ENG-12|id|none", description: "Parent task (makes this a subtask)" },
  label: { type: "string", valueHint: "name|id", description: "Repeatable; replaces the task's labels (names in any case)" },
  due: { type: "string", valueHint: "YYYY-MM-DD|none", description: "Due date" },
} as const;

type FieldOptions = { [K in Exclude<keyof typeof fieldArgs, "label">]?: string };

const orNone = (value: string) => (value.toLowerCase() === NONE ? null : value);

/** `me` as an assignee is the caller. */
const isMe = (assignee: string | null | undefined) => assignee?.toLowerCase() === "me";
const callerId = async ({ client }: Session) => (await unwrap(client.GET("/me"))).user.id;

/**
 * The body fields the options give (only those given: an update changes nothing else); `defs` are the command's. Records
 * go to the API as given, by id or name (a team prefix, a reference, an email, a label name): the API resolves them
 * (contract §13). An assignee `me` is left for `resolveMe`, once the command line is known to be right.
 */
function taskFields(given: FieldOptions, rawArgs: string[], defs: ArgsDef): Schemas["TaskUpdate"] {
  const fields: Schemas["TaskUpdate"] = {};
  if (given.title !== undefined) fields.title = given.title;
  if (given.description !== undefined) fields.description = given.description;
  if (given.priority !== undefined) fields.priority = oneOf("priority", given.priority, PRIORITIES);
  if (given.status !== undefined) fields.status = oneOf("status", given.status, STATUSES);
  if (given.assignee !== undefined) fields.assigneeId = orNone(given.assignee);
  if (given.project !== undefined) fields.projectId = orNone(given.project);
  if (given.parent !== undefined) fields.parentId = orNone(given.parent);
  if (given.due !== undefined) fields.dueDate = orNone(given.due);
  const labels = repeated(rawArgs, defs, "label");
  if (labels.length > 0) fields.labelIds = labels;
  return fields;
}

/** Makes the assignee `me` the caller's id (a request only when given). */
async function resolveMe(session: Session, fields: Schemas["TaskUpdate"]): Promise<void> {
  if (isMe(fields.assigneeId)) fields.assigneeId = await callerId(session);
}

function printTask(task: TaskSelection): void {
  printRecord([
    ["reference", task.reference],
    ["title", task.title],
    ["status", task.status],
    ["priority", task.priority],
    ["team", task.team],
    ["assignee", task.assignee],
    ["project", task.projectId],
    ["parent", task.parentId],
    ["labels", task.labels?.map((label) => label.name)],
    ["due", task.dueDate],
    ["created", task.createdAt],
    ["updated", task.updatedAt],
    ["id", task.id],
  ]);
  if (task.description) console.log(`\n${task.description}`);
}

/** Prints a task the API answered with, as JSON or for people. */
function show(json: boolean | undefined, answer: { task: Task | TaskSelection }): void {
  if (json) printJson(answer);
  else printTask(answer.task);
}

const TASK_COLUMNS: Column<TaskSelection>[] = [
  { header: "REF", value: (t) => t.reference },
  { header: "STATUS", value: (t) => t.status },
  { header: "PRIORITY", value: (t) => t.priority },
  { header: "ASSIGNEE", value: (t) => t.assignee },
  { header: "TITLE", value: (t) => t.title },
];

const listOwnArgs = {
  team: { type: "string", valueHint: "ENG|id", description: "Only this team's tasks" },
  status: { type: "string", valueHint: "TODO[,DONE…]", description: "Only these statuses" },
  assignee: { type: "string", valueHint: "email|user id|me|none", description: "Only tasks assigned to them (none: unassigned)" },
} as const;
const listAllArgs = { ...listOwnArgs, ...listArgs, ...commonArgs } as const;

const list = defineCommand({
  meta: { name: "pm tasks list", description: "List tasks (filters combine with AND)" },
  args: listAllArgs,
  async run({ args, rawArgs }) {
    const query = listQuery(args, rawArgs, listAllArgs);
    const statuses = args.status?.split(",").map((status) => oneOf("status", status, STATUSES)) ?? [];
    if (statuses.length > 0) addFilter(query, statuses.length > 1 ? "in" : "eq", "status", statuses.length > 1 ? statuses : statuses[0]);
    const session = openSession(args["base-url"]);
    if (args.team) addFilter(query, "eq", "teamId", args.team);
    if (args.assignee) {
      const assignee = orNone(args.assignee);
      // The filters' word for "no value" is null.
      addFilter(query, "eq", "assigneeId", assignee === null ? "null" : isMe(assignee) ? await callerId(session) : assignee);
    }
    const page = await unwrap(session.client.GET("/tasks", { params: { query } }));
    if (args.json) return printJson(page);
    printTable<TaskSelection>(page.tasks, args.fields ? fieldColumns(args.fields) : TASK_COLUMNS);
    printNextCursor(page.pagination.nextCursor);
  },
});

const get = defineCommand({
  meta: { name: "pm tasks get", description: "Show one task" },
  args: { ref: refArg, fields: listArgs.fields, ...commonArgs },
  async run({ args }) {
    const { client } = openSession(args["base-url"]);
    const query = args.fields ? { fields: args.fields } : {};
    show(args.json, await unwrap(client.GET("/tasks/{id}", { params: { path: { id: args.ref }, query } })));
  },
});

const createArgs = {
  team: { type: "string", valueHint: "ENG|id", description: "The task's team", required: true },
  ...fieldArgs,
  title: { ...fieldArgs.title, required: true },
  ...commonArgs,
} as const;

const create = defineCommand({
  meta: { name: "pm tasks create", description: "Create a task" },
  args: createArgs,
  async run({ args, rawArgs }) {
    const fields = taskFields(args, rawArgs, createArgs);
    const session = openSession(args["base-url"]);
    await resolveMe(session, fields);
    const body: Schemas["TaskCreate"] = { ...fields, teamId: args.team, title: args.title };
    show(args.json, await unwrap(session.client.POST("/tasks", { body })));
  },
});

const updateArgs = { ref: refArg, ...fieldArgs, ...commonArgs } as const;

const update = defineCommand({
  meta: { name: "pm tasks update", description: "Change a task's fields (only the options given)" },
  args: updateArgs,
  async run({ args, rawArgs }) {
    const body = taskFields(args, rawArgs, updateArgs);
    if (Object.keys(body).length === 0) throw new UsageError("nothing to update: give at least one field option");
    const session = openSession(args["base-url"]);
    await resolveMe(session, body);
    show(args.json, await unwrap(session.client.PATCH("/tasks/{id}", { params: { path: { id: args.ref } }, body })));
  },
});

const history = defineCommand({
  meta: { name: "pm tasks history", description: "Who changed what on a task, and when (newest first)" },
  args: {
    ref: refArg,
    limit: listArgs.limit,
    cursor: { type: "string", description: "Older events: the cursor the previous page printed" },
    ...commonArgs,
  },
  async run({ args }) {
    if (args.limit !== undefined && !/^\d+$/.test(args.limit)) throw new UsageError(`--limit must be a whole number (got '${args.limit}')`);
    const { client } = openSession(args["base-url"]);
    const query = {
      ...(args.limit === undefined ? {} : { limit: Number(args.limit) }),
      ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
    };
    const page = await unwrap(client.GET("/tasks/{id}/history", { params: { path: { id: args.ref }, query } }));
    if (args.json) return printJson(page);
    printTable(page.events, HISTORY_COLUMNS);
    printNextCursor(page.pagination.nextCursor);
  },
});

export const tasks = defineCommand({
  meta: { name: "pm tasks", description: "Tasks" },
  subCommands: { list, view, get, create, update, history },
});
