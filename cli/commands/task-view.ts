// `pm tasks view ENG-12`: a task as a person reads it (as `gh issue view`): its fields (its parent, project and
// milestone by name), its description, its relations and sub-tasks with their status, its files and links, then its
// comments oldest first. `--json` is the task's JSON with its `relations`, `attachments`, `links` and `comments` added.
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { linkedNames } from "../linked";
import { printJson, printRecord, printTable } from "../output";
import { openSession, type Session, unwrap } from "../session";
import { allAttachments, printAttachments } from "./attachments";

type Comment = Schemas["TaskCommentSelection"];
type Relation = Schemas["TaskRelationSelection"];
type Link = Schemas["TaskLinkSelection"];

/** What the view for people shows: only these are read (the API narrows its query to them). */
const TASK_FIELDS = "id,reference,title,status,priority,assignee{name},labels{name},projectId,milestoneId,parentId,dueDate,description";
const COMMENT_FIELDS = "author{name},createdAt,content";
const RELATION_FIELDS = "type,task{reference,status,title}";
const LINK_FIELDS = "url,title";
/** The API's largest page: most tasks' comments are one request. */
const PAGE = 250;

/** Every item of a paged list, page after page (`fields` narrows them; undefined: whole items). */
async function allPages<T>(
  read: (query: { limit: number; fields?: string; cursor?: string }) => Promise<{ items: T[]; next: string | null | undefined }>,
  fields: string | undefined,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await read({ limit: PAGE, ...(fields ? { fields } : {}), ...(cursor ? { cursor } : {}) });
    items.push(...page.items);
    cursor = page.next ?? undefined;
  } while (cursor);
  return items;
}

/** Every comment of the task, oldest first. */
const allComments = ({ client }: Session, id: string, fields: string | undefined): Promise<Comment[]> =>
  allPages(async (query) => {
    const page = await unwrap(client.GET("/tasks/{id}/comments", { params: { path: { id }, query } }));
    return { items: page.comments, next: page.pagination.nextCursor };
  }, fields);

/** The task's relations as it sees them. */
const allRelations = ({ client }: Session, id: string, fields: string | undefined): Promise<Relation[]> =>
  allPages(async (query) => {
    const page = await unwrap(client.GET("/tasks/{id}/relations", { params: { path: { id }, query } }));
    return { items: page.relations, next: page.pagination.nextCursor };
  }, fields);

/** The task's links, oldest first. */
const allLinks = ({ client }: Session, id: string, fields: string | undefined): Promise<Link[]> =>
  allPages(async (query) => {
    const page = await unwrap(client.GET("/tasks/{id}/links", { params: { path: { id }, query } }));
    return { items: page.links, next: page.pagination.nextCursor };
  }, fields);

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
    const session = openSession(args);
    const id = args.ref;
    // The task and its comments at once: the comments' route takes the reference as well as the id.
    const [{ task }, comments, relations, links, files] = await Promise.all([
      unwrap(session.client.GET("/tasks/{id}", { params: { path: { id }, query: args.json ? {} : { fields: TASK_FIELDS } } })),
      allComments(session, id, args.json ? undefined : COMMENT_FIELDS),
      allRelations(session, id, args.json ? undefined : RELATION_FIELDS),
      allLinks(session, id, args.json ? undefined : LINK_FIELDS),
      allAttachments(session, id),
    ]);
    if (args.json) return printJson({ task: { ...task, relations, attachments: files, links, comments } });
    const linked = await linkedNames(session, task, true);
    printRecord([
      ["title", task.title],
      ["reference", task.reference],
      ["status", task.status],
      ["priority", task.priority],
      ["assignee", task.assignee?.name ?? null],
      ["labels", task.labels?.map((label) => label.name).join(", ")],
      ["parent", linked.parent ?? null],
      ["project", linked.project ?? null],
      ["milestone", linked.milestone ?? null],
      ["due", task.dueDate],
    ]);
    console.log(`\n${task.description || "No description."}`);
    // `  blocked by  ENG-4  IN_PROGRESS  Title`, a line each.
    if (relations.length > 0) console.log("\nRelations:");
    for (const r of relations)
      console.log(`  ${[(r.type ?? "").replace("_", " "), r.task?.reference, r.task?.status, r.task?.title].join("  ")}`);
    if (files.length > 0) {
      console.log(`\n${files.length === 1 ? "1 file:" : `${files.length} files:`} (pm download <id>)`);
      printAttachments(files);
    }
    const subtasks = linked.subtasks ?? [];
    if (subtasks.length > 0) {
      console.log(`\n${subtasks.length === 1 ? "1 sub-task:" : `${subtasks.length} sub-tasks:`}`);
      printTable(subtasks, [
        { header: "REF", value: (t) => t.reference },
        { header: "STATUS", value: (t) => t.status },
        { header: "TITLE", value: (t) => t.title },
      ]);
    }
    // `  Title  https://…`, a line each.
    if (links.length > 0) console.log("\nLinks:");
    for (const l of links) console.log(`  ${[l.title, l.url].filter(Boolean).join("  ")}`);
    printComments(comments);
  },
});
