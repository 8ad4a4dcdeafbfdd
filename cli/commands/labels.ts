// `pm labels list` (a command that takes labels passes their names to the API, which resolves them: contract §13).
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { listArgs, listQuery } from "../list";
import { printJson, printNextCursor, printTable } from "../output";
import { openSession, unwrap } from "../session";

const args = { ...listArgs, ...commonArgs } as const;

const list = defineCommand({
  meta: { name: "pm labels list", description: "List the workspace's labels" },
  args,
  async run({ args: given, rawArgs }) {
    const query = listQuery(given, rawArgs, args);
    const { client } = openSession(given["base-url"]);
    const page = await unwrap(client.GET("/labels", { params: { query } }));
    if (given.json) return printJson(page);
    printTable<Schemas["LabelSelection"]>(page.labels, [
      { header: "NAME", value: (l) => l.name },
      { header: "COLOR", value: (l) => l.color },
      { header: "ID", value: (l) => l.id },
    ]);
    printNextCursor(page.pagination.nextCursor);
  },
});

export const labels = defineCommand({
  meta: { name: "pm labels", description: "Labels" },
  subCommands: { list },
});
