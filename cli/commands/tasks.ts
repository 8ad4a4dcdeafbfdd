// `pm tasks`: list (filters by name, every page with --all), view and get, create, edit (alias update) with labels
// added or removed, close, reopen, delete (asked first), history; a task shown for people names its links.
import { type ArgsDef, defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs, oneOf, repeated } from "../argv";
import { UsageError } from "../errors";
import { confirm, editText, fileText, textOrStdin } from "../input";
import { linkedNames } from "../linked";
import { addFilter, type ListQuery, listArgs, listQuery, printList } from "../list";
import { type Column, printJson, printNextCursor, printRecord, printTable } from "../output";
import { openSession, type Session, type SessionOptions, unwrap, unwrapEmpty } from "../session";
import { historyColumns } from "./events";
import { delegate } from "./sessions";
import { bulkEdit, bulkFilter } from "./task-bulk";
import { claim, release } from "./task-claims";
import { link, unlink } from "./task-links";
import { view } from "./task-view";

type Task = Schemas["Task"];
type TaskSelection = Schemas["TaskSelection"];

// Checked here too, so that a typo is a usage error before any request; `satisfies` keeps them the API's values. A status
// is one of the team's workflow states (`pm states ENG`), by key or name: the API checks it.
const PRIORITIES = ["NONE", "LOW", "MEDIUM", "HIGH", "URGENT"] as const satisfies readonly Schemas["TaskPriority"][];

const NONE = "none";
const refArg = { type: "positional", description: "Task reference (ENG-12, any case) or id", valueHint: "ref", required: true } as const;

/** The options of a task's fields, shared by create and edit (`none` clears a link, the due date or the estimate). */
const fieldArgs = {
  title: { type: "string", alias: "t", valueHint: "text|-", description: "Title (-: read from standard input)" },
  description: { type: "string", alias: "b", valueHint: "text|-", description: "Markdown description (-: standard input)" },
  "body-file": { type: "string", alias: "F", valueHint: "file", description: "Read the description from a file (-: standard input)" },
  editor: { type: "boolean", alias: "e", description: "Write the description in $EDITOR (on a terminal)" },
  priority: { type: "string", valueHint: PRIORITIES.join("|"), description: "Priority" },
  state: {
    type: "string",
    alias: "status",
    valueHint: "key|name",
    description: 'Workflow state of the task\'s team, by key or name in any case (`--state "In QA"`; `pm states ENG` lists them)',
  },
  assignee: { type: "string", alias: "a", valueHint: "@me|email|id|none", description: "Assignee" },
  project: { type: "string", alias: "p", valueHint: "ENG-P3|id|none", description: "Project of the task's team" },
  milestone: { type: "string", alias: "m", valueHint: "id|none", description: "Milestone of the task's project" },
  parent: { type: "string", valueHint: "ENG-12|id|none", description: "Parent task (makes this a sub-task)" },
  label: { type: "string", alias: "l", valueHint: "name", description: "Repeatable; sets the task's labels (any case)" },
  due: { type: "string", valueHint: "YYYY-MM-DD|none", description: "Due date" },
  estimate: { type: "string", valueHint: "points|none", description: "Estimate" },
} as const;

type FieldOptions = { [K in Exclude<keyof typeof fieldArgs, "label" | "editor">]?: string } & { editor?: boolean };

const orNone = (value: string) => (value.toLowerCase() === NONE ? null : value);

/** `@me` (or `me`) as an assignee is the caller. */
const isMe = (assignee: string | null | undefined) => assignee?.toLowerCase().replace(/^@/, "") === "me";
const callerId = async ({ client }: Session) => (await unwrap(client.GET("/me"))).user.id;

/** The description the options give: `--description` (or `-`), `--body-file`, or written in $EDITOR. */
async function descriptionOf(given: FieldOptions, current = ""): Promise<string | undefined> {
  const sources = [given.description !== undefined, given["body-file"] !== undefined, Boolean(given.editor)].filter(Boolean);
  if (sources.length > 1) throw new UsageError("give the description one way: --description, --body-file or --editor");
  if (given.description !== undefined) return textOrStdin("description", given.description);
  if (given["body-file"] !== undefined) return fileText(given["body-file"]);
  if (given.editor) return editText(current, "the description");
  return undefined;
}

/**
 * The body fields the options give (only those given: an edit changes nothing else); `defs` are the command's. Records
 * go to the API as given, by id or name (a team prefix, a reference, an email, a label name): the API resolves them
 * (docs/api.md, "Ids and names"). An assignee `@me` is left for `resolveMe`, once the command line is known to be right.
 */
async function taskFields(given: FieldOptions, rawArgs: string[], defs: ArgsDef, current?: string): Promise<Schemas["TaskUpdate"]> {
  const fields: Schemas["TaskUpdate"] = {};
  if (given.priority !== undefined) fields.priority = oneOf("priority", given.priority, PRIORITIES);
  if (given.state !== undefined) fields.status = given.state;
  if (given.assignee !== undefined) fields.assigneeId = orNone(given.assignee);
  if (given.project !== undefined) fields.projectId = orNone(given.project);
  if (given.milestone !== undefined) fields.milestoneId = orNone(given.milestone);
  if (given.parent !== undefined) fields.parentId = orNone(given.parent);
  if (given.due !== undefined) fields.dueDate = orNone(given.due);
  if (given.estimate !== undefined) {
    const estimate = orNone(given.estimate);
    if (estimate !== null && !/^\d+(\.\d+)?$/.test(estimate))
      throw new UsageError(`--estimate must be a number or none (got '${estimate}')`);
    fields.estimate = estimate === null ? null : Number(estimate);
  }
  const labels = repeated(rawArgs, defs, "label");
  if (labels.length > 0) fields.labelIds = labels;
  if (given.title !== undefined) fields.title = await textOrStdin("title", given.title);
  const description = await descriptionOf(given, current);
  if (description !== undefined) fields.description = description;
  return fields;
}

/** Makes the assignee `@me` the caller's id (a request only when given). */
async function resolveMe(session: Session, fields: Schemas["TaskUpdate"]): Promise<void> {
  if (isMe(fields.assigneeId)) fields.assigneeId = await callerId(session);
}

async function printTask(session: Session, task: TaskSelection): Promise<void> {
  const linked = await linkedNames(session, task);
  printRecord([
    ["reference", task.reference],
    ["title", task.title],
    ["status", task.status],
    ["priority", task.priority],
    ["team", task.team],
    ["assignee", task.assignee],
    // Undefined when not selected (`--fields`): left out.
    ["project", task.projectId === undefined ? undefined : (linked.project ?? null)],
    ["milestone", task.milestoneId === undefined ? undefined : (linked.milestone ?? null)],
    ["parent", task.parentId === undefined ? undefined : (linked.parent ?? null)],
    ["labels", task.labels?.map((label) => label.name)],
    ["due", task.dueDate],
    ["estimate", task.estimate],
    ["created", task.createdAt],
    ["updated", task.updatedAt],
  ]);
  if (task.description) console.log(`\n${task.description}`);
}

/** Prints a task the API answered with, as JSON or for people. */
function show(session: Session, json: boolean | undefined, answer: { task: Task | TaskSelection }): Promise<void> {
  return json ? printJson(answer) : printTask(session, answer.task);
}

const TASK_COLUMNS: Column<TaskSelection>[] = [
  { header: "REF", value: (t) => t.reference },
  { header: "STATUS", value: (t) => t.status },
  { header: "PRIORITY", value: (t) => t.priority },
  { header: "ASSIGNEE", value: (t) => t.assignee },
  { header: "TITLE", value: (t) => t.title },
];

/** `--state` as gh's: open tasks are those whose state is neither completed nor canceled, in whatever team. */
const STATES = {
  open: ["backlog", "unstarted", "started"],
  closed: ["completed", "canceled"],
  all: [],
} as const satisfies Record<string, readonly Schemas["StateCategory"][]>;

const listOwnArgs = {
  team: { type: "string", valueHint: "ENG|id", description: "Only this team's tasks" },
  state: {
    type: "string",
    alias: "s",
    valueHint: "open|closed|all",
    description: "Open (not completed or canceled), closed, or all (the default)",
  },
  status: { type: "string", valueHint: "todo,in_progress", description: "Only these states, by key or name (any case)" },
  assignee: { type: "string", alias: "a", valueHint: "@me|email|id|none", description: "Only tasks assigned to them (none: unassigned)" },
  label: { type: "string", alias: "l", valueHint: "name", description: "Only tasks with this label" },
  project: { type: "string", valueHint: "ENG-P1|none", description: "Only this project's tasks" },
  milestone: { type: "string", valueHint: "id|none", description: "Only this milestone's tasks" },
  parent: { type: "string", valueHint: "ENG-1|none", description: "Only sub-tasks of this task (none: top-level tasks)" },
  priority: { type: "string", valueHint: "high,urgent", description: "Only these priorities (any case)" },
  search: { type: "string", alias: "S", valueHint: "words", description: "Only tasks whose title contains this" },
  blocked: { type: "boolean", description: "Only tasks with an open blocker (--no-blocked: none)" },
} as const;
const listAllArgs = { ...listOwnArgs, ...listArgs, ...commonArgs } as const;

/** `--status todo,in_progress`: one value as `eq`, several as `in`. */
function addValues(query: ListQuery, field: string, values: string[]): void {
  if (values.length > 0) addFilter(query, values.length > 1 ? "in" : "eq", field, values.length > 1 ? values : values[0]);
}

/** A link filter's value: `none` is the filters' word for "no value", null. */
const linkValue = (value: string) => (orNone(value) === null ? "null" : value);

const list = defineCommand({
  meta: { name: "pm tasks list", description: "List tasks (filters combine with AND)" },
  args: listAllArgs,
  async run({ args, rawArgs }) {
    const query = listQuery(args, rawArgs, listAllArgs);
    if (args.state !== undefined && args.status !== undefined) throw new UsageError("--state and --status both choose statuses: give one");
    const state = args.state?.toLowerCase() ?? "all";
    if (!Object.hasOwn(STATES, state)) throw new UsageError(`--state must be open, closed or all (got '${args.state}')`);
    if (args.status) addValues(query, "status", args.status.split(","));
    else addValues(query, "statusCategory", [...STATES[state as keyof typeof STATES]]);
    addValues(query, "priority", args.priority?.split(",").map((p) => oneOf("priority", p, PRIORITIES)) ?? []);
    if (args.search) addFilter(query, "contains", "title", args.search);
    if (args.blocked !== undefined) addFilter(query, "eq", "isBlocked", String(args.blocked));
    if (args.milestone) addFilter(query, "eq", "milestoneId", linkValue(args.milestone));
    // Names go to the API as given (a team prefix, a label name, an email, a reference): it resolves them.
    if (args.team) addFilter(query, "eq", "teamId", args.team);
    if (args.label) addFilter(query, "eq", "labelId", args.label);
    if (args.project) addFilter(query, "eq", "projectId", linkValue(args.project));
    if (args.parent) addFilter(query, "eq", "parentId", linkValue(args.parent));
    const session = openSession(args);
    if (args.assignee) addFilter(query, "eq", "assigneeId", isMe(args.assignee) ? await callerId(session) : linkValue(args.assignee));
    await printList(args, (q) => unwrap(session.client.GET("/tasks", { params: { query: q } })), query, "tasks", TASK_COLUMNS);
  },
});

const get = defineCommand({
  meta: { name: "pm tasks get", description: "Show one task's fields" },
  args: { ref: refArg, fields: listArgs.fields, ...commonArgs },
  async run({ args }) {
    const session = openSession(args);
    const query = args.fields ? { fields: args.fields } : {};
    await show(session, args.json, await unwrap(session.client.GET("/tasks/{id}", { params: { path: { id: args.ref }, query } })));
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
    const fields = await taskFields(args, rawArgs, createArgs);
    const session = openSession(args);
    await resolveMe(session, fields);
    const body: Schemas["TaskCreate"] = { ...fields, teamId: args.team, title: fields.title ?? args.title };
    await show(session, args.json, await unwrap(session.client.POST("/tasks", { body })));
  },
});

const editArgs = {
  ref: {
    ...refArg,
    valueHint: "ref...",
    required: false,
    description: "Task reference (ENG-12, any case) or id; several change them all at once, all or nothing",
  },
  ...fieldArgs,
  "add-label": { type: "string", valueHint: "name", description: "Repeatable; adds a label (any case)" },
  "remove-label": { type: "string", valueHint: "name", description: "Repeatable; removes a label" },
  filter: {
    ...listArgs.filter,
    description: `Instead of tasks: every task it matches (at most 1000), all or nothing. ${listArgs.filter.description}; or one JSON filter`,
  },
  "dry-run": { type: "boolean", description: "With several tasks or --filter: print what would change, write nothing" },
  ...commonArgs,
} as const;

/** How many times an edit of the labels is tried again when the task changed between its read and its write (412). */
const LABEL_EDIT_TRIES = 3;

/**
 * The task's labels with `add` added and `remove` removed, written with the ETag of the read (If-Match), so that
 * labels set by someone else meanwhile are not lost: on 412 the task is read again.
 */
async function editLabels(session: Session, ref: string, body: Schemas["TaskUpdate"], add: string[], remove: string[]) {
  // Labels go by id or name (the API resolves names); a removed one matches either, names in any case.
  const removed = new Set(remove.map((value) => value.toLowerCase()));
  for (let attempt = 1; ; attempt++) {
    // The whole task: its ETag is the one If-Match compares with (a narrowed answer has another).
    const read = await session.client.GET("/tasks/{id}", { params: { path: { id: ref } } });
    const { task } = await unwrap(Promise.resolve(read));
    const kept = (task.labels ?? []).filter((label) => !removed.has(String(label.id)) && !removed.has(String(label.name).toLowerCase()));
    const labelIds = [...new Set([...kept.flatMap((label) => (label.id ? [label.id] : [])), ...add])];
    const headers = { "if-match": read.response.headers.get("etag") ?? "*" };
    const answer = await session.client.PATCH("/tasks/{id}", { params: { path: { id: ref } }, body: { ...body, labelIds }, headers });
    if (answer.response.status !== 412 || attempt === LABEL_EDIT_TRIES) return unwrap(Promise.resolve(answer));
  }
}

const edit = defineCommand({
  meta: { name: "pm tasks edit", description: "Change a task's fields (only the options given; alias: update)" },
  args: editArgs,
  async run({ args, rawArgs }) {
    const add = repeated(rawArgs, editArgs, "add-label");
    const remove = repeated(rawArgs, editArgs, "remove-label");
    if ((add.length || remove.length) && repeated(rawArgs, editArgs, "label").length) {
      throw new UsageError("--label sets the labels: give it, or --add-label/--remove-label, not both");
    }
    const refs = args._.map(String);
    const filters = repeated(rawArgs, editArgs, "filter");
    if (refs.length && filters.length) throw new UsageError("give tasks or --filter, not both");
    if (!refs.length && !filters.length) throw new UsageError("give a task (or several), or --filter");
    if (refs.length > 1 || filters.length || args["dry-run"]) {
      const session = openSession(args);
      const body = await taskFields(args, rawArgs, editArgs);
      if (Object.keys(body).length === 0 && !add.length && !remove.length) {
        throw new UsageError("nothing to change: give at least one field option");
      }
      await resolveMe(session, body);
      const target = refs.length ? { ids: refs } : { filter: bulkFilter(filters, () => listQuery({}, rawArgs, editArgs)) };
      return bulkEdit(session, target, body, { add, remove }, { dryRun: Boolean(args["dry-run"]), json: args.json });
    }
    const session = openSession(args);
    // $EDITOR starts from the current description.
    const current = args.editor
      ? (await unwrap(session.client.GET("/tasks/{id}", { params: { path: { id: refs[0] }, query: { fields: "description" } } }))).task
          .description
      : undefined;
    const body = await taskFields(args, rawArgs, editArgs, current);
    if (Object.keys(body).length === 0 && !add.length && !remove.length) {
      throw new UsageError("nothing to change: give at least one field option");
    }
    await resolveMe(session, body);
    const answer =
      add.length || remove.length
        ? await editLabels(session, refs[0], body, add, remove)
        : await unwrap(session.client.PATCH("/tasks/{id}", { params: { path: { id: refs[0] } }, body }));
    await show(session, args.json, answer);
  },
});

/**
 * `close` and `reopen`: a move to the first state of `category` in the task's team (its states are the team's own, so
 * they are read first), said in one line.
 */
async function setStatus(args: { ref: string; json?: boolean } & SessionOptions, category: Schemas["StateCategory"], verb: string) {
  const session = openSession(args);
  const path = { id: args.ref };
  const { task } = await unwrap(session.client.GET("/tasks/{id}", { params: { path, query: { fields: "teamId" } } }));
  const { states } = await unwrap(session.client.GET("/teams/{id}/states", { params: { path: { id: String(task.teamId) } } }));
  const status = states.find((state) => state.category === category)?.key;
  if (!status) throw new UsageError(`the task's team has no ${category} state`);
  const answer = await unwrap(session.client.PATCH("/tasks/{id}", { params: { path }, body: { status } }));
  if (args.json) return printJson(answer);
  console.log(`${verb} ${answer.task.reference} ${answer.task.title} (${answer.task.status})`);
}

/** `--reason` of `pm tasks close`: the category of the state it closes in. */
const CLOSED_AS = { done: "completed", canceled: "canceled" } as const satisfies Record<string, Schemas["StateCategory"]>;

const close = defineCommand({
  meta: {
    name: "pm tasks close",
    description: "Close a task: done (its team's first completed state, the default), canceled, or a duplicate of another",
  },
  args: {
    ref: refArg,
    reason: { type: "string", valueHint: "done|canceled|duplicate", description: "Why it is closed" },
    duplicateOf: { type: "string", valueHint: "ENG-2", description: "With --reason duplicate: the task it duplicates" },
    ...commonArgs,
  },
  async run({ args }) {
    const reason = (args.reason ?? (args.duplicateOf ? "duplicate" : "done")).toLowerCase();
    if (reason === "duplicate") {
      if (!args.duplicateOf) throw new UsageError("--reason duplicate needs --duplicate-of <task>");
      // The relation closes it: a duplicate moves to its team's first canceled state (unless completed) in its own transaction.
      const session = openSession(args);
      const path = { id: args.ref };
      await unwrap(
        session.client.POST("/tasks/{id}/relations", { params: { path }, body: { type: "duplicate_of", taskId: args.duplicateOf } }),
      );
      const { task } = await unwrap(session.client.GET("/tasks/{id}", { params: { path, query: { fields: "reference,title,status" } } }));
      if (args.json) return printJson({ task });
      return void console.log(`closed ${task.reference} ${task.title} (${task.status}, duplicate of ${args.duplicateOf})`);
    }
    if (args.duplicateOf) throw new UsageError("--duplicate-of goes with --reason duplicate");
    if (!Object.hasOwn(CLOSED_AS, reason)) throw new UsageError(`--reason must be done, canceled or duplicate (got '${args.reason}')`);
    return setStatus(args, CLOSED_AS[reason as keyof typeof CLOSED_AS], "closed");
  },
});

const reopen = defineCommand({
  meta: { name: "pm tasks reopen", description: "Reopen a closed task (its team's first unstarted state)" },
  args: { ref: refArg, ...commonArgs },
  run: ({ args }) => setStatus(args, "unstarted", "reopened"),
});

const remove = defineCommand({
  meta: { name: "pm tasks delete", description: "Delete a task and its sub-tasks (asks first unless --yes)" },
  args: { ref: refArg, yes: { type: "boolean", alias: "y", description: "Do not ask (needed off a terminal)" }, ...commonArgs },
  async run({ args }) {
    const session = openSession(args);
    const path = { id: args.ref };
    const { task } = await unwrap(session.client.GET("/tasks/{id}", { params: { path, query: { fields: "reference,title" } } }));
    const name = `${task.reference} ${task.title}`;
    if (!args.yes && !(await confirm(`Delete ${name}?`))) return void console.error("Nothing deleted.");
    await unwrapEmpty(session.client.DELETE("/tasks/{id}", { params: { path } }));
    if (args.json) return printJson({ deleted: task.reference });
    console.log(`deleted ${name}`);
  },
});

const history = defineCommand({
  meta: { name: "pm tasks history", description: "Who changed what on a task, and when (newest first)" },
  args: {
    ref: refArg,
    limit: { ...listArgs.limit, description: "Events per page, 1..250 (the API's default 50)" },
    cursor: { type: "string", description: "Older events: the cursor the previous page printed" },
    ...commonArgs,
  },
  async run({ args }) {
    if (args.limit !== undefined && !/^\d+$/.test(args.limit)) throw new UsageError(`--limit must be a whole number (got '${args.limit}')`);
    const session = openSession(args);
    const query = {
      ...(args.limit === undefined ? {} : { limit: Number(args.limit) }),
      ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
    };
    const page = await unwrap(session.client.GET("/tasks/{id}/history", { params: { path: { id: args.ref }, query } }));
    if (args.json) return printJson(page);
    printTable(page.events, await historyColumns(session, page.events));
    printNextCursor(page.pagination.nextCursor);
  },
});

export const tasks = defineCommand({
  meta: { name: "pm tasks", description: "Tasks" },
  subCommands: {
    list,
    view,
    get,
    create,
    edit,
    update: edit,
    close,
    reopen,
    delete: remove,
    history,
    link,
    unlink,
    claim,
    release,
    delegate,
  },
});
