import { createRoute, z } from "@hono/zod-openapi";
import { emailOutbox } from "../../http/email-outbox";
import { errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { publicRoute } from "../../http/route-base";
import { newRouter } from "../../http/router";
import { completeLogin, startLogin } from "./operations";

const LoginStart = z
  .object({ email: z.email().max(254) })
  .strict()
  .openapi("LoginStart");
const LoginComplete = z
  .object({
    login_token: z.string().min(1).max(200),
    code: z.string().length(6, "Must be exactly 6 characters"),
    workspace_slug: z.string().min(1).max(100).optional().openapi({ description: "Defaults to the first workspace the user joined" }),
  })
  .strict()
  .openapi("LoginComplete");

const start = createRoute({
  method: "post",
  operationId: "startLogin",
  path: "/login/start",
  ...publicRoute("Account", { rateLimit: "ip" }),
  summary: "Start a login: emails a 6-digit code (valid 15 minutes, 5 tries)",
  description:
    "An address without an account gets the same answer (a login_token that can never complete) and no email, so the answer does not reveal whether an account exists.",
  request: jsonBody(LoginStart),
  responses: {
    200: jsonResponse(z.object({ data: z.object({ login_token: z.string() }) }), "Code sent if the account exists"),
    ...errorResponses(["BAD_REQUEST", "UNAVAILABLE"], { validation: true }),
  },
});

const complete = createRoute({
  method: "post",
  operationId: "completeLogin",
  path: "/login/complete",
  ...publicRoute("Account", { rateLimit: "ip" }),
  summary: "Complete a login: a new API key of the chosen workspace",
  description:
    "Verifies the emailed code (single use; the fifth wrong code invalidates it) and returns a new API key of `workspace_slug`, or of the user's first workspace by membership. A slug the user is not a member of is 422 at `workspace_slug` (whether or not it exists) and leaves the code usable.",
  request: jsonBody(LoginComplete),
  responses: {
    200: jsonResponse(z.object({ data: z.object({ api_token: z.string(), workspace_slug: z.string() }) }), "Logged in"),
    ...errorResponses(["BAD_REQUEST", "UNAVAILABLE"], { validation: true }),
  },
});

export const loginRoutes = newRouter()
  .openapi(start, async (c) => {
    const token = await startLogin(c.get("rdb").db, emailOutbox(c), c.req.valid("json").email);
    return c.json({ data: { login_token: token } }, 200);
  })
  .openapi(complete, async (c) => {
    const data = await completeLogin(c.get("rdb").db, c.req.valid("json"));
    return c.json({ data }, 200);
  });
