import { z } from "@hono/zod-openapi";
import { ERROR_STATUS, type ErrorCode } from "../core/errors";

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "NOT_FOUND" }),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .openapi("Error");

export const ValidationErrorBody = z
  .object({ errors: z.record(z.string(), z.array(z.string())) })
  .openapi("ValidationError", { example: { errors: { code: ["Must be exactly 6 characters"] } } });

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** Documented error responses for a route: one entry per status, plus 422 when `validation` is set. */
export function errorResponses(codes: ErrorCode[], opts: { validation?: boolean } = {}) {
  const out: Record<number, ReturnType<typeof json>> = {};
  for (const code of codes) out[ERROR_STATUS[code]] = json(ErrorBody, code);
  if (opts.validation) out[422] = json(ValidationErrorBody, "Validation failed");
  return out;
}

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { "application/json": { schema } } },
});
export const jsonResponse = json;

export const security: Array<Record<string, string[]>> = [{ ApiKey: [] }, { Bearer: [] }];
