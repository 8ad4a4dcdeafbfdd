import { createRoute, z } from "@hono/zod-openapi";
import { emailOutbox } from "../../http/email-outbox";
import { errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { publicRoute } from "../../http/route-base";
import { newRouter } from "../../http/router";
import { UserName } from "../users/record";
import { WorkspaceName } from "../workspaces/record";
import { completeSignup, startSignup } from "./operations";

const SignupStart = z
  .object({ email: z.email().max(254) })
  .strict()
  .openapi("SignupStart");
const SignupComplete = z
  .object({
    signup_token: z.string().min(1).max(200),
    code: z.string().length(6, "Must be exactly 6 characters"),
    name: UserName,
    workspace_name: WorkspaceName,
  })
  .strict()
  .openapi("SignupComplete");

const start = createRoute({
  method: "post",
  operationId: "startSignup",
  path: "/signup/start",
  ...publicRoute("Account", { rateLimit: "ip" }),
  summary: "Start sign-up: emails a 6-digit code (valid 15 minutes, 5 tries)",
  description: "Complete it with the returned `signup_token` and the emailed code at POST /signup/complete.",
  request: jsonBody(SignupStart),
  responses: {
    200: jsonResponse(z.object({ data: z.object({ signup_token: z.string() }) }), "Code sent"),
    ...errorResponses(["BAD_REQUEST", "UNAVAILABLE"], { validation: true }),
  },
});

const complete = createRoute({
  method: "post",
  operationId: "completeSignup",
  path: "/signup/complete",
  // Its writes are by the account it makes, whatever credential came along.
  ...publicRoute("Account", { via: "sign_up", rateLimit: "ip" }),
  summary: "Complete sign-up: creates the user, an initial workspace (user is OWNER) and an API key",
  description: "An email that already has an account is 409; a wrong code is 422 (the fifth wrong code invalidates it).",
  request: jsonBody(SignupComplete),
  responses: {
    201: jsonResponse(
      z.object({ data: z.object({ api_token: z.string(), workspace_slug: z.string(), workspace_name: z.string() }) }),
      "Signed up",
    ),
    ...errorResponses(["BAD_REQUEST", "CONFLICT", "UNAVAILABLE"], { validation: true }),
  },
});

export const signupRoutes = newRouter()
  .openapi(start, async (c) => {
    const { email } = c.req.valid("json");
    const token = await startSignup(c.get("rdb").db, emailOutbox(c), email);
    return c.json({ data: { signup_token: token } }, 200);
  })
  .openapi(complete, async (c) => {
    const data = await completeSignup(c.get("rdb").db, c.req.valid("json"));
    return c.json({ data }, 201);
  });
