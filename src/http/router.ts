import { OpenAPIHono } from "@hono/zod-openapi";
import { TrieRouter } from "hono/router/trie-router";
import type { ZodError } from "zod";
import { badRequest, ValidationError } from "../core/errors";
import type { AppEnv } from "./context";
import { zodErrors } from "./validation";

type ValidationResult = { success: boolean; target: string; error?: ZodError };

const toValidationError = (result: ValidationResult): undefined => {
  if (!result.success) throw new ValidationError(zodErrors(result.error!));
  return undefined;
};

/**
 * Every router validates with the same hook: a zod failure is the API's 422 `{errors}` body. It matches with Hono's
 * TrieRouter: the default (SmartRouter) first tries a RegExpRouter, which cannot serve this app's routes, and found that
 * out on each new isolate's first request by building it for every route and throwing it away (docs/performance.md,
 * "Cold start").
 */
export const newRouter = () => new OpenAPIHono<AppEnv>({ defaultHook: toValidationError, router: new TrieRouter() });

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
