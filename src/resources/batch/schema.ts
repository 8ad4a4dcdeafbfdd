import { z } from "@hono/zod-openapi";
import { ErrorBody } from "../../http/openapi";

/** Items per call: 1..50 (docs/api.md); each a path the size of a URL a browser would send. */
export const MAX_ITEMS = 50;
const MAX_PATH = 4096;

export const BatchRequest = z
  .strictObject({
    requests: z
      .array(z.string().min(1).max(MAX_PATH))
      .min(1)
      .max(MAX_ITEMS)
      .openapi({
        description: `1..${MAX_ITEMS} relative GET paths with their query strings (\`/tasks/ENG-1?fields=title\`); \`GET /path\` is accepted too.`,
        example: ["/tasks/ENG-1", "/tasks?filter[eq][priority]=HIGH&limit=5", "/teams/team_01h…/members"],
      }),
  })
  .openapi("BatchRequest");

export const BatchResponse = z
  .object({
    results: z.array(z.union([z.record(z.string(), z.unknown()), ErrorBody])).openapi({
      description:
        "One per request, in order: the body the direct GET answers, or `{error:{code,message,details?}}` for an item that failed " +
        "(a 422 becomes code `VALIDATION_FAILED` with the field messages in `details.errors`).",
    }),
  })
  .openapi("BatchResponse");
