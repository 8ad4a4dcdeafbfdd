import { OpenAPIHono } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { badRequest, ValidationError } from "../core/errors";
import type { AppEnv } from "./context";
import { zodErrors } from "./validation";

type ValidationResult = { success: boolean; target: string; error?: ZodError };

const toValidationError = (result: ValidationResult): undefined => {
  if (!result.success) throw new ValidationError(zodErrors(result.error!));
  return undefined;
};

/** Every router validates with the same hook: a zod failure is the API's 422 `{errors}` body. */
export const newRouter = () => new OpenAPIHono<AppEnv>({ defaultHook: toValidationError });

/**
 * Route hook (third argument of `.openapi`): a JSON body whose required identifier `field` is absent or null is 400
 * BAD_REQUEST (a missing required parameter, such as a team identifier: docs/api.md, decisions); any other failure
 * stays 422.
 */
export const missingIsBadRequest =
  (field: string) =>
  (result: ValidationResult): undefined => {
    // On failure the validator passes the raw input as `data`.
    const input = (result as { data?: unknown }).data;
    const missing =
      result.target === "json" &&
      typeof input === "object" &&
      input !== null &&
      !Array.isArray(input) &&
      (input as Record<string, unknown>)[field] == null;
    if (!result.success && missing) throw badRequest(`${field} is required`, { field });
    return toValidationError(result);
  };
