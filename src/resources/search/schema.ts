import { z } from "@hono/zod-openapi";
import { Pagination } from "../../http/route-schemas";
import { MAX_CURSOR_LENGTH } from "../../store/list";

export const SEARCH_TYPES = ["task", "project", "milestone"] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export const SearchQuery = z.object({
  q: z
    .string()
    .max(200)
    .refine((q) => q.trim().length > 0, "Must not be blank")
    .openapi({ description: 'Words, "quoted phrases", `or` and `-excluded` (websearch syntax); or a reference like `ENG-12`.' }),
  types: z
    .string()
    .max(100)
    .optional()
    .transform((raw, ctx) => {
      const types = raw === undefined ? [...SEARCH_TYPES] : raw.split(",").map((t) => t.trim());
      const unknown = types.filter((t) => !(SEARCH_TYPES as readonly string[]).includes(t));
      if (unknown.length > 0) ctx.addIssue({ code: "custom", message: `Unknown type: ${unknown.join(", ")} (task, project, milestone)` });
      return [...new Set(types)] as SearchType[];
    })
    .openapi({ type: "string", maxLength: 100, description: "Comma list of `task`, `project`, `milestone` (default: all)." }),
  limit: z.coerce.number().int().min(1).max(250).default(50),
  // Longer than any cursor is refused by the cursor check (400), as a tampered one.
  cursor: z.string().optional().openapi({ maxLength: MAX_CURSOR_LENGTH }),
});

export const SearchResult = z
  .object({
    type: z.enum(SEARCH_TYPES),
    id: z.string(),
    reference: z.string().optional().openapi({ description: "Tasks (`ENG-12`) and projects (`ENG-P3`)." }),
    title: z.string(),
    snippet: z.string().openapi({ description: "Plain text; matched words are wrapped in « and »." }),
    score: z.number().openapi({ description: "Higher is better; an exact reference scores 1000." }),
  })
  .openapi("SearchResult");

export const SearchPage = z.object({ results: z.array(SearchResult), pagination: Pagination });
