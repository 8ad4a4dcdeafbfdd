import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { listArgs, listQuery } from "../list";
import { printJson, printNextCursor, printTable } from "../output";
import { openSession, unwrap } from "../session";

const args = { ...listArgs, ...commonArgs } as const;

const list = defineCommand({
  meta: { name: "pm projects list", description: "List the workspace's projects" },
  args,
  async run({ args: given, rawArgs }) {
    const query = listQuery(given, rawArgs, args);
    const { client } = openSession(given["base-url"]);
    const page = await unwrap(client.GET("/projects", { params: { query } }));
    if (given.json) return printJson(page);
    printTable<Schemas["ProjectSelection"]>(page.projects, [
      { header: "REF", value: (p) => p.reference },
      { header: "STATUS", value: (p) => p.status },
      { header: "TEAM", value: (p) => p.team?.prefix },
      { header: "LEAD", value: (p) => p.lead },
      { header: "NAME", value: (p) => p.name },
    ]);
    printNextCursor(page.pagination.nextCursor);
  },
});

export const projects = defineCommand({
  meta: { name: "pm projects", description: "Projects" },
  subCommands: { list },
});
