// `pm tasks view ENG-12`: a task as a person reads it (as `gh issue view`): its fields, its relations and sub-tasks with
// their status, its description, then its comments oldest first. `--json` is the task's JSON with its `relations`,
// `subtasks` and `comments` added, for scripts.
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { printJson, printRecord } from "../output";
import { openSession, type Session, unwrap } from "../session";

type Comment = Schemas["TaskCommentSelection"];

/** What the view for people shows: only these are read (the API narrows its query to them). */
const TASK_FIELDS = "id,reference,title,status,priority,assignee{name},labels{name},projectId,dueDate,description";
const RELATION_FIELDS = "type,task{reference,status,title}";
const SUBTASK_FIELDS = "reference,status,title";
const COMMENT_FIELDS = "author{name},createdAt,content";
/** The API's largest page: most tasks' comments are one request. */
const PAGE = 250;

/** Every comment of the task, oldest first (`fields` narrows them; undefined: whole comments). */
async function allComments({ client }: Session, ref: string, fields: string | undefined): Promise<Comment[]> {
  const comments: Comment[] = [];
  let cursor: string | undefined;
  do {
    const query = { limit: PAGE, ...(fields ? { fields } : {}), ...(cursor ? { cursor } : {}) };
    const page = await unwrap(client.GET("/tasks/{id}/comments", { params: { path: { id: ref }, query } }));
    comments.push(...page.comments);
    cursor = page.pagination.nextCursor ?? undefined;
  } while (cursor);
  return comments;
}

/** The task's relations as it sees them (`fields` narrows them; undefined: whole relations). */
async function allRelations({ client }: Session, ref: string, fields: string | undefined) {
  const relations: Schemas["TaskRelationSelection"][] = [];
  let cursor: string | undefined;
  do {
    const query = { limit: PAGE, ...(fields ? { fields } : {}), ...(cursor ? { cursor } : {}) };
    const page = await unwrap(client.GET("/tasks/{id}/relations", { params: { path: { id: ref }, query } }));
    relations.push(...page.relations);
    cursor = page.pagination.nextCursor ?? undefined;
  } while (cursor);
  return relations;
}

/** The task's direct sub-tasks (the first page: 250). */
async function subtasksOf({ client }: Session, taskId: string, fields: string | undefined) {
  const query = { limit: PAGE, "filter[eq][parentId]": taskId, ...(fields ? { fields } : {}) } as Record<string, string | number>;
  return (await unwrap(client.GET("/tasks", { params: { query } }))).tasks;
}

/** One line per related task or sub-task: `  blocked by  ENG-4  IN_PROGRESS  Title`. */
function printLinked(heading: string, rows: Array<[string, Schemas["TaskSelection"] | undefined]>): void {
  if (rows.length === 0) return;
  console.log(`\n${heading}:`);
  for (const [label, task] of rows) console.log(`  ${[label, task?.reference, task?.status, task?.title].filter(Boolean).join("  ")}`);
}

/** `ENG-P3 Engine`: the task carries only its project's id, so the project costs one more request. */
async function projectName({ client }: Session, projectId: string): Promise<string> {
  const query = { fields: "reference,name" };
  const { project } = await unwrap(client.GET("/projects/{id}", { params: { path: { id: projectId }, query } }));
  return `${project.reference} ${project.name}`;
}

/** `2026-05-04 09:12 UTC`: a comment's time to the minute. */
const minute = (iso: string | undefined) => (iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "-");

function printComments(comments: Comment[]): void {
  console.log(`\n${comments.length === 0 ? "No comments." : comments.length === 1 ? "1 comment:" : `${comments.length} comments:`}`);
  for (const comment of comments) {
    console.log(`\n${comment.author?.name ?? "-"} · ${minute(comment.createdAt)}`);
    console.log(comment.content);
  }
}

export const view = defineCommand({
  meta: { name: "pm tasks view", description: "Show a task with its description and comments" },
  args: {
    ref: { type: "positional", description: "Task reference (ENG-12, any case) or id", valueHint: "ref", required: true },
    ...commonArgs,
  },
  async run({ args }) {
    const session = openSession(args["base-url"]);
    const id = args.ref;
    // The task and its comments at once: the comments' route takes the reference as well as the id.
    const [{ task }, comments, relations] = await Promise.all([
      unwrap(session.client.GET("/tasks/{id}", { params: { path: { id }, query: args.json ? {} : { fields: TASK_FIELDS } } })),
      allComments(session, id, args.json ? undefined : COMMENT_FIELDS),
      allRelations(session, id, args.json ? undefined : RELATION_FIELDS),
    ]);
    // Sub-tasks are listed by their parent's id, which the answer gives.
    const subtasks = await subtasksOf(session, task.id as string, args.json ? undefined : SUBTASK_FIELDS);
    if (args.json) return printJson({ task: { ...task, relations, subtasks, comments } });
    printRecord([
      ["title", task.title],
      ["reference", task.reference],
      ["status", task.status],
      ["priority", task.priority],
      ["assignee", task.assignee?.name ?? null],
      ["labels", task.labels?.map((label) => label.name).join(", ")],
      ["project", task.projectId ? await projectName(session, task.projectId) : null],
      ["due", task.dueDate],
    ]);
    printLinked(
      "Relations",
      relations.map((r) => [(r.type ?? "").replace("_", " "), r.task as Schemas["TaskSelection"]]),
    );
    printLinked(
      "Sub-tasks",
      subtasks.map((sub) => ["", sub]),
    );
    console.log(`\n${task.description || "No description."}`);
    printComments(comments);
  },
});
