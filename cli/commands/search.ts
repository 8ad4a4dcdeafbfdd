import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { printJson, printNextCursor, printTable } from "../output";
import { openSession, unwrap } from "../session";

export const search = defineCommand({
  meta: { name: "pm search", description: "Search tasks, projects and milestones (best first; an exact reference like ENG-12 first)" },
  args: {
    query: {
      type: "positional",
      description: 'Words, "quoted phrases", or, -excluded; or a reference',
      valueHint: "query",
      required: true,
    },
    types: { type: "string", valueHint: "task,project,milestone", description: "Which records (default: all)" },
    limit: { type: "string", valueHint: "n", description: "1..250 (default 50)" },
    cursor: { type: "string", description: "Next page: the cursor the previous page printed" },
    ...commonArgs,
  },
  async run({ args }) {
    const { client } = openSession(args);
    const query = {
      q: args.query,
      ...(args.types === undefined ? {} : { types: args.types }),
      ...(args.limit === undefined ? {} : { limit: Number(args.limit) }),
      ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
    };
    const page = await unwrap(client.GET("/search", { params: { query } }));
    if (args.json) return printJson(page);
    printTable<Schemas["SearchResult"]>(page.results, [
      { header: "TYPE", value: (r) => r.type },
      { header: "REF", value: (r) => r.reference },
      { header: "TITLE", value: (r) => r.title },
      { header: "SNIPPET", value: (r) => r.snippet },
    ]);
    printNextCursor(page.pagination.nextCursor);
  },
});
