// `pm labels list` (a command that takes labels passes their names to the API, which resolves them).
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { listArgs, listQuery, printList } from "../list";
import { printJson } from "../output";
import { openSession, unwrap } from "../session";

const args = { ...listArgs, ...commonArgs } as const;

const list = defineCommand({
  meta: { name: "pm labels list", description: "List the workspace's labels" },
  args,
  async run({ args: given, rawArgs }) {
    const query = listQuery(given, rawArgs, args);
    const { client } = openSession(given);
    await printList(given, (q) => unwrap(client.GET("/labels", { params: { query: q } })), query, "labels", [
      { header: "NAME", value: (l: Schemas["LabelSelection"]) => l.name },
      { header: "COLOR", value: (l: Schemas["LabelSelection"]) => l.color },
    ]);
  },
});

const create = defineCommand({
  meta: { name: "pm labels create", description: "Create a label (any member may)" },
  args: {
    name: { type: "positional", description: "The label's name (unique in the workspace, any case)", required: true },
    color: { type: "string", valueHint: "#RRGGBB", description: "Its colour", required: true },
    ...commonArgs,
  },
  async run({ args }) {
    const { client } = openSession(args);
    const answer = await unwrap(client.POST("/labels", { body: { name: args.name, color: args.color } }));
    if (args.json) return printJson(answer);
    console.log(`created the label ${answer.label.name} (${answer.label.color})`);
  },
});

export const labels = defineCommand({
  meta: { name: "pm labels", description: "Labels" },
  subCommands: { list, create },
});
