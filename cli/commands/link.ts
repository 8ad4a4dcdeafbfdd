// `pm link ENG-12 https://… [--title T]` adds a URL to a task (the service never fetches it); the same URL again is the
// link the task has (docs/api.md, "Links"). `pm tasks view` lists a task's links.
import { defineCommand } from "citty";
import { commonArgs } from "../argv";
import { printJson } from "../output";
import { openSession, unwrap } from "../session";

export const link = defineCommand({
  meta: { name: "pm link", description: "Link a URL (a pull request, a log) to a task: pm link ENG-12 URL" },
  args: {
    ref: { type: "positional", description: "Task reference (ENG-12) or id", valueHint: "ref", required: true },
    url: { type: "positional", description: "An http or https URL", valueHint: "url", required: true },
    title: { type: "string", alias: "t", description: "What the link is" },
    ...commonArgs,
  },
  async run({ args }) {
    const { client } = openSession(args);
    const body = { url: args.url, ...(args.title === undefined ? {} : { title: args.title }) };
    const answered = client.POST("/tasks/{id}/links", { params: { path: { id: args.ref } }, body });
    const { response } = await answered;
    const { link } = await unwrap(answered);
    if (args.json) return printJson({ link });
    console.log(`${response.status === 201 ? "linked" : "already linked"} ${link.url} to ${args.ref.toUpperCase()}`);
  },
});
