import { createRoute, type z } from "@hono/zod-openapi";
import { errorResponses, jsonResponse } from "../../http/openapi";
import { reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { newRouter } from "../../http/router";
import { search as searchOperation } from "./operations";
import { SearchPage, SearchQuery } from "./schema";

const search = createRoute({
  ...protectedRoute("Search"),
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

export const searchRoutes = newRouter().openapi(
  search,
  reading(search, ({ caller, query }) => searchOperation(caller, query as z.infer<typeof SearchQuery>)),
);
