import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context";
import { ValidationError } from "./errors";
import { zodErrors } from "./validation";

/** Every router validates with the same hook: a zod failure is the spec's 422 `{errors}` body. */
export const newRouter = () =>
  new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw new ValidationError(zodErrors(result.error));
    },
  });
