import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody } from "../../http/openapi";
import { protectedRoute } from "../../http/route-base";
import { created } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { createAgent } from "./operations";
import { AgentCreate, AgentSchema } from "./record";

const create = createRoute({
  ...protectedRoute("Agents"),
  method: "post",
  operationId: "createAgent",
  path: "/agents",
  summary: "Create an AI agent user",
  description:
    "Human callers only (an agent caller: 403). The agent is a user of type AGENT whose `humanId` is the caller, joins the caller's " +
    "current workspace as MEMBER and gets its own API key, returned once as `apiKey`. It has no mailbox and needs no verification: its " +
    "`email` is generated as `<agent id>@agents.pm.invalid`. `Location` names the agent as a user (`/users/{id}`). Its key may do what " +
    "`scopes` and `teamIds` say (omitted: what the calling credential may), never more than the calling credential: a scope it lacks is " +
    "403 naming it in `details.requiredScope`, every team asked by a credential bound to teams is 403, a team outside its teams is 404.",
  request: jsonBody(AgentCreate),
  responses: {
    201: createdResponse(z.object({ agent: AgentSchema }), "Created"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});

export const agentRoutes = newRouter().openapi(create, async (c) => {
  const agent = await createAgent(c.get("caller"), c.req.valid("json"));
  return created(c, "agent", `/users/${agent.id}`, agent);
});
