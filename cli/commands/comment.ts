import { text } from "node:stream/consumers";
import { defineCommand } from "citty";
import { commonArgs } from "../argv";
import { UsageError } from "../errors";
import { printJson } from "../output";
import { openSession, unwrap } from "../session";

/** The comment: the argument, or with `-` standard input (as `gh … --body-file -`), less the final line break a file ends with. */
async function commentText(argument: string): Promise<string> {
  if (argument !== "-") return argument;
  const body = (await text(process.stdin)).replace(/\r?\n$/, "");
  if (!body.trim()) throw new UsageError("the comment read from standard input is empty");
  return body;
}

export const comment = defineCommand({
  meta: { name: "pm comment", description: "Comment on a task (Markdown)" },
  args: {
    ref: { type: "positional", description: "Task reference (ENG-12) or id", valueHint: "ref", required: true },
    text: { type: "positional", description: "The comment (quote it), or - to read it from standard input", required: true },
    ...commonArgs,
  },
  async run({ args }) {
    const { client } = openSession(args["base-url"]);
    const content = await commentText(args.text);
    const answer = await unwrap(client.POST("/comments", { body: { taskId: args.ref, content } }));
    if (args.json) return printJson(answer);
    console.log(`commented on ${args.ref.toUpperCase()} (${answer.comment.id})`);
  },
});
