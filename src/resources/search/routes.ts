import { createRoute } from "@hono/zod-openapi";
import { credentialScope } from "../../auth/credential";
import { gatedList } from "../../auth/middleware";
import { selfAuthed } from "../../auth/route-base";
import { errorResponses, jsonResponse } from "../../http/openapi";
import { newRouter } from "../../http/router";
import { searchCursor } from "./cursor";
import { searchRows } from "./queries";
import { SearchPage, SearchQuery } from "./schema";

const search = createRoute({
  ...selfAuthed("Search"),
  method: "get",
  operationId: "search",
  path: "/search",
  summary: "Search tasks, projects and milestones",
  description:
    "Full-text search (PostgreSQL, `simple` configuration: words match as typed, in any language) over task titles and " +
    "descriptions and project and milestone names and descriptions, the title or name weighted above the description. " +
    '`q` takes websearch syntax (`"a phrase"`, `or`, `-word`). An exact reference (`ENG-12`, `ENG-P3`, any case) comes ' +
    "first. Results are ordered by `score` (descending), then `id`. `snippet` is plain text from the description (or the " +
    "title when the description has no match), at most 25 words, matches wrapped in « and ». Only the caller's workspace " +
    "is searched; a cursor of another query or credential is 400.",
  request: { query: SearchQuery },
  responses: {
    200: jsonResponse(SearchPage, "Matches, best first"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});

export const searchRoutes = newRouter().openapi(search, async (c) => {
  const { q, types, limit, cursor } = c.req.valid("query");
  const pages = searchCursor({ scope: credentialScope(c.get("credential")), secret: c.env.CURSOR_SECRET }, q, types);
  const after = cursor === undefined ? undefined : await pages.decode(cursor);
  const rows = await gatedList(c, (workspace) => searchRows(c.get("rdb").db, workspace, { q, types, limit: limit + 1, after }));
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return c.json(
    {
      results: page.map((r) => ({
        type: r.type,
        id: r.id,
        ...(r.reference === null ? {} : { reference: r.reference }),
        title: r.title,
        snippet: r.snippet,
        score: Number(r.score),
      })),
      pagination: { limit, nextCursor: rows.length > limit && last ? await pages.encode(last) : null },
    },
    200,
  );
});
