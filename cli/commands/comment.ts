// `pm comment ENG-12 "text"` comments on a task; `pm comment edit|delete` change one of yours (by its id, or a task
// reference for your latest comment there, as `gh … --edit-last`); `pm comments ENG-12` lists a task's comments.
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { UsageError } from "../errors";
import { confirm, textOrStdin } from "../input";
import { listArgs, listQuery, printList } from "../list";
import { printJson } from "../output";
import { openSession, type Session, unwrap, unwrapEmpty } from "../session";

const COMMENT_ID = /^cmnt_[0-9a-z]{26}$/;

/** The comment: the argument, or with `-` standard input (as `gh … --body-file -`). */
async function commentText(argument: string): Promise<string> {
  const body = await textOrStdin("text", argument);
  if (!body.trim()) throw new UsageError("the comment is empty");
  return body;
}

const textArg = { type: "positional", description: "The comment (quote it), or - to read it from standard input", required: true } as const;
const whichArg = {
  type: "positional",
  valueHint: "comment-id|ENG-12",
  description: "The comment's id, or a task reference: your latest comment on that task",
  required: true,
} as const;

/** The comment `which` names: an id as is; a task reference, the caller's latest comment on that task. */
async function commentId({ client }: Session, which: string): Promise<string> {
  if (COMMENT_ID.test(which)) return which;
  const me = (await unwrap(client.GET("/me"))).user.id;
  const query = { "filter[eq][authorId]": me, "sort[createdAt]": "desc" as const, limit: 1, fields: "id" };
  const { comments } = await unwrap(client.GET("/tasks/{id}/comments", { params: { path: { id: which }, query } }));
  if (!comments[0]?.id) throw new UsageError(`you have no comment on ${which.toUpperCase()}`);
  return comments[0].id;
}

const add = defineCommand({
  meta: { name: "pm comment", description: "Comment on a task (Markdown)" },
  args: {
    ref: { type: "positional", description: "Task reference (ENG-12) or id", valueHint: "ref", required: true },
    text: textArg,
    ...commonArgs,
  },
  async run({ args }) {
    const { client } = openSession(args);
    const content = await commentText(args.text);
    const answer = await unwrap(client.POST("/comments", { body: { taskId: args.ref, content } }));
    if (args.json) return printJson(answer);
    console.log(`commented on ${args.ref.toUpperCase()}`);
  },
});

const edit = defineCommand({
  meta: { name: "pm comment edit", description: "Change the text of one of your comments" },
  args: { which: whichArg, text: textArg, ...commonArgs },
  async run({ args }) {
    const session = openSession(args);
    const content = await commentText(args.text);
    const id = await commentId(session, args.which);
    const answer = await unwrap(session.client.PATCH("/comments/{id}", { params: { path: { id } }, body: { content } }));
    if (args.json) return printJson(answer);
    console.log("comment edited");
  },
});

const remove = defineCommand({
  meta: { name: "pm comment delete", description: "Delete a comment (asks first unless --yes)" },
  args: { which: whichArg, yes: { type: "boolean", alias: "y", description: "Do not ask (needed off a terminal)" }, ...commonArgs },
  async run({ args }) {
    const session = openSession(args);
    const id = await commentId(session, args.which);
    const { comment } = await unwrap(session.client.GET("/comments/{id}", { params: { path: { id }, query: { fields: "content" } } }));
    const preview = (comment.content ?? "").replace(/\s+/g, " ");
    const quoted = preview.length > 40 ? `${preview.slice(0, 39)}…` : preview;
    if (!args.yes && !(await confirm(`Delete the comment "${quoted}"?`))) return void console.error("Nothing deleted.");
    await unwrapEmpty(session.client.DELETE("/comments/{id}", { params: { path: { id } } }));
    console.log("comment deleted");
  },
});

/** `pm comment ENG-12 "text"` is `pm comment add`: the runner (cli/main.ts) makes `add` the default. */
export const comment = defineCommand({
  meta: { name: "pm comment", description: 'Comment on a task: pm comment ENG-12 "text"; edit or delete yours' },
  subCommands: { add, edit, delete: remove },
});

type TaskComment = Schemas["TaskCommentSelection"];

/** `2026-05-04 09:12 UTC`: a comment's time to the minute. */
export const minute = (iso: string | undefined) => (iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "-");

const listAllArgs = {
  ref: { type: "positional", description: "Task reference (ENG-12) or id", valueHint: "ref", required: true },
  ...listArgs,
  ...commonArgs,
} as const;

const list = defineCommand({
  meta: { name: "pm comments", description: "A task's comments, oldest first" },
  args: listAllArgs,
  async run({ args, rawArgs }) {
    const query = { "sort[createdAt]": "asc", ...listQuery(args, rawArgs, listAllArgs) };
    const { client } = openSession(args);
    const path = { id: args.ref };
    await printList(args, (q) => unwrap(client.GET("/tasks/{id}/comments", { params: { path, query: q } })), query, "comments", [
      { header: "WHEN", value: (c: TaskComment) => minute(c.createdAt) },
      { header: "AUTHOR", value: (c: TaskComment) => c.author?.name },
      { header: "COMMENT", value: (c: TaskComment) => c.content },
    ]);
  },
});

/** `pm comments ENG-12` is `pm comments list ENG-12`. */
export const comments = defineCommand({ meta: { name: "pm comments", description: "A task's comments" }, subCommands: { list } });
