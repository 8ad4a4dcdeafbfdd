import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { getSession, listActivities, listSessions, postActivity, stopSession } from "./operations";
import {
  ActivityCreate,
  AgentActivity,
  AgentActivitySelection,
  AgentSession,
  AgentSessionSelection,
  activityRecord,
  sessionRecord,
} from "./record";

const base = protectedRoute("Agent sessions");
const SessionIdParam = IdParam.extend({
  id: IdParam.shape.id.openapi({ param: { name: "id", in: "path" }, description: "Agent session id (`ses_…`)" }),
});
const WHO_SEES = "An agent sees its own sessions; a person those of the tasks it reads.";

const list = createRoute({
  ...base,
  method: "get",
  operationId: "listAgentSessions",
  path: "/agent-sessions",
  summary: "List agent sessions",
  description: listDescription(
    sessionRecord.list,
    `${WHO_SEES} \`filter[eq][agentId]=…\`, \`filter[eq][taskId]=ENG-12\`, \`filter[in][state]=pending&filter[in][state]=stale\`.`,
  ),
  request: { query: listQueryFor(sessionRecord.list) },
  responses: {
    200: jsonResponse(paginated("sessions", AgentSessionSelection), "Sessions (narrowed by `fields`)"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});
const read = createRoute({
  ...base,
  method: "get",
  operationId: "getAgentSession",
  path: "/agent-sessions/{id}",
  summary: "Get an agent session",
  description: `${WHO_SEES} Any other is 404.`,
  request: { params: SessionIdParam, query: fieldsQueryFor(sessionRecord.shape) },
  responses: {
    200: jsonResponse(z.object({ session: AgentSessionSelection }), "The session (narrowed by `fields`)"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const activities = createRoute({
  ...base,
  method: "get",
  operationId: "listAgentActivities",
  path: "/agent-sessions/{id}/activities",
  summary: "List a session's activities",
  description: listDescription(activityRecord.list, "Oldest first by default. A session the caller does not see is 404."),
  request: { params: SessionIdParam, query: listQueryFor(activityRecord.list) },
  responses: {
    200: jsonResponse(paginated("activities", AgentActivitySelection), "Activities (narrowed by `fields`)"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const post = createRoute({
  ...base,
  method: "post",
  operationId: "createAgentActivity",
  path: "/agent-sessions/{id}/activities",
  summary: "Post an activity to a session",
  description:
    "Needs `tasks:write`. `thought`, `action`, `elicitation`, `response` and `error` only by the session's agent (its key, OAuth " +
    "token or JWT); `prompt` only by a person who may change the task (team MEMBER or higher, or workspace ADMIN/OWNER). Anyone " +
    "else is 403. The session's state follows: thought or action `active`, elicitation `awaiting_input`, response `complete`, " +
    "error `error`, prompt `pending`. A stopped session takes none (409). Append-only.",
  request: { params: SessionIdParam, ...jsonBody(ActivityCreate) },
  responses: {
    201: createdResponse(z.object({ activity: AgentActivity }), "Posted"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});
const stop = createRoute({
  ...base,
  method: "post",
  operationId: "stopAgentSession",
  path: "/agent-sessions/{id}/stop",
  summary: "Stop a session",
  description:
    "Needs `tasks:write`; by a person who may change the task, or the agent's owner. The session is `stopped` for good (a stopped " +
    "session answers as it is); delegating the task again opens a new one.",
  request: { params: SessionIdParam },
  responses: {
    200: jsonResponse(z.object({ session: AgentSession }), "Stopped"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"]),
  },
});

export const agentSessionRoutes = newRouter()
  .openapi(list, reading(list, listing(sessionRecord.list, "sessions", listSessions)))
  .openapi(read, reading(read, oneRecord("session", sessionRecord.shape, getSession)))
  .openapi(
    activities,
    reading(
      activities,
      listing(activityRecord.list, "activities", (caller, params, param) => listActivities(caller, param.id, params)),
    ),
  )
  .openapi(post, async (c) => {
    const { id } = c.req.valid("param");
    const activity = await postActivity(c.get("caller"), id, c.req.valid("json"));
    return created(c, "activity", `/agent-sessions/${id}/activities`, activity);
  })
  .openapi(stop, async (c) => {
    const session = await stopSession(c.get("caller"), c.req.valid("param").id);
    return c.json({ session }, 200);
  });
