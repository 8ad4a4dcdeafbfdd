// Search as one module (src/http/module.ts): the register entry, routes and MCP tools.
import { z } from "@hono/zod-openapi";
import type { ResourceModule } from "../../http/module";
import { tool } from "../../http/tool";
import { search } from "./operations";
import register from "./register";
import { searchRoutes } from "./routes";
import { SEARCH_TYPES, SearchPage, SearchQuery } from "./schema";

export default {
  name: "search",
  resource: register,
  routes: [searchRoutes],
  tools: [
    tool({
      name: "search",
      rank: 130,
      title: "Search",
      description:
        "Full-text search of tasks, projects and milestones (GET /search); an exact reference (`ENG-12`) comes first; `snippet` " +
        "wraps matched words in « ».",
      rest: "GET /search",
      input: z
        .object({
          q: SearchQuery.shape.q,
          types: z.array(z.enum(SEARCH_TYPES)).min(1).optional().describe("Which records (default: all three)"),
          limit: z.number().int().min(1).max(250).optional(),
          cursor: SearchQuery.shape.cursor,
        })
        .strict(),
      output: SearchPage,
      async run(ctx, { q, types = [...SEARCH_TYPES], limit = 50, cursor }) {
        return search(ctx.caller, { q, types: [...new Set(types)], limit, cursor });
      },
    }),
  ],
} satisfies ResourceModule;
