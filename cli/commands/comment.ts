import { defineCommand } from "citty";
import { commonArgs } from "../argv";
import { printJson } from "../output";
import { openSession, unwrap } from "../session";

export const comment = defineCommand({
  meta: { name: "pm comment", description: "Comment on a task (Markdown)" },
  args: {
    ref: { type: "positional", description: "Task reference (ENG-12) or id", valueHint: "ref", required: true },
    text: { type: "positional", description: "The comment (quote it)", required: true },
    ...commonArgs,
  },
  async run({ args }) {
    const { client } = openSession(args["base-url"]);
    const answer = await unwrap(client.POST("/comments", { body: { taskId: args.ref, content: args.text } }));
    if (args.json) return printJson(answer);
    console.log(`commented on ${args.ref.toUpperCase()} (${answer.comment.id})`);
  },
});
