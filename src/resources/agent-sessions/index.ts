// Agent sessions as one module (src/http/module.ts; docs/agents.md): the register entry, routes and MCP tools. Its field
// maps (resources/agent-sessions/record.ts) render its answers and events, and give tasks their `session`.
import { z } from "@hono/zod-openapi";
import type { ResourceModule } from "../../http/module";
import { paginated } from "../../http/route-schemas";
import { Cursor, pageQuery, tool } from "../../http/tool";
import { describeList, type ListArgs, ListInput, listQuery } from "../../http/tool-input";
import { NameOf } from "../../records/names";
import { listBody } from "../../store/list";
import { getSession, listActivities, listSessions, postActivity } from "./operations";
import {
  ActivityCreate,
  AgentActivity,
  AgentActivitySelection,
  AgentSessionSelection,
  activityRecord,
  SESSION_ID,
  sessionRecord,
} from "./record";
import register from "./register";
import { agentSessionRoutes } from "./routes";

const { limit: Limit } = ListInput.shape;

export default {
  name: "agent-sessions",
  resource: register,
  eventRecords: { agent_session: sessionRecord.fields, agent_activity: activityRecord.fields },
  routes: [agentSessionRoutes],
  // An agent lists its sessions, reads one with its activities, and posts to it.
  tools: [
    tool({
      name: "list_sessions",
      rank: 310,
      title: "List agent sessions",
      description: `Agent sessions (GET /agent-sessions): an agent sees its own. ${describeList(sessionRecord.list)}`,
      rest: "GET /agent-sessions",
      input: ListInput,
      output: paginated("sessions", AgentSessionSelection),
      async run(ctx, args: ListArgs) {
        const params = await ctx.caller.listParams(sessionRecord.list, listQuery(args));
        return listBody("sessions", params, await listSessions(ctx.caller, params));
      },
    }),
    tool({
      name: "get_session",
      rank: 320,
      title: "Get an agent session",
      description: "A session with its activities, oldest first (GET /agent-sessions/{id} and …/activities).",
      rest: "GET /agent-sessions/{id}",
      input: z.object({ id: NameOf(SESSION_ID), limit: Limit, cursor: Cursor }).strict(),
      output: z.object({ session: AgentSessionSelection, ...paginated("activities", AgentActivitySelection).shape }),
      async run(ctx, { id, ...page }) {
        const params = await ctx.caller.listParams(activityRecord.list, pageQuery(page));
        const [session, activities] = await Promise.all([getSession(ctx.caller, id), listActivities(ctx.caller, id, params)]);
        return { session, ...(await listBody("activities", params, activities)) };
      },
    }),
    tool({
      name: "post_activity",
      rank: 330,
      title: "Post to an agent session",
      description:
        "Posts to a session (POST /agent-sessions/{id}/activities): its agent a thought, action, elicitation, response or error.",
      rest: "POST /agent-sessions/{id}/activities",
      input: z.object({ id: NameOf(SESSION_ID), ...ActivityCreate.shape }).strict(),
      output: z.object({ activity: AgentActivity }),
      async run(ctx, { id, ...body }) {
        return { activity: await postActivity(ctx.caller, id, body) };
      },
    }),
  ],
} satisfies ResourceModule;
