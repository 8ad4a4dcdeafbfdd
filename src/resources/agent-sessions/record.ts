// The AgentSession and AgentActivity records (docs/agents.md): an agent working on a task it was delegated,
// and what happened in it. A session's state is the one its last activity made (stored with the activity, never set by a
// request), read as `stale` when it is pending or active and nothing happened for 30 minutes (at read time, no job).
import { z } from "@hono/zod-openapi";
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { agentActivities, agentActivityType, agentSessionState, agentSessions } from "../../../drizzle/schema";
import { idKind, named } from "../../records/names";
import { defineRecord, f } from "../../store/field-map";

/** How a request names an agent session: by its id (`ses_…`) only. */
export const SESSION_ID = idKind("an agent session id", "ses");
/** How a request names an agent activity: by its id (`act_…`) only. */
export const ACTIVITY_ID = idKind("an agent activity id", "act");

/** A session with no activity for this long reads `stale` while pending or active. */
export const STALE_AFTER_MINUTES = 30;

export const SessionState = z.enum([...agentSessionState.enumValues, "stale"]).openapi("AgentSessionState");
export type SessionStateName = z.infer<typeof SessionState>;
/** The stored states of an open session (a delegation reuses it; at most one per task and agent: agent_sessions_open_key). */
export const OPEN_STATES = ["pending", "active", "awaiting_input"] as const;
const openStates = sql.raw(`(${OPEN_STATES.map((s) => `'${s}'`).join(", ")})`);

/** What an activity of each type makes the session (a prompt: pending again, until the agent answers it). */
export const STATE_AFTER = {
  prompt: "pending",
  thought: "active",
  action: "active",
  elicitation: "awaiting_input",
  response: "complete",
  error: "error",
} as const satisfies Record<(typeof agentActivityType.enumValues)[number], SessionStateName>;

type SessionColumns = Record<"state" | "lastActivityAt" | "createdAt", SQLWrapper>;
/** The state as read now: the stored one, or `stale` for a pending or active session idle for STALE_AFTER_MINUTES. */
export const sessionStateSql = (s: SessionColumns): SQL<SessionStateName> =>
  sql<SessionStateName>`case when ${s.state} in ('pending', 'active')
    and coalesce(${s.lastActivityAt}, ${s.createdAt}) < now() - interval '${sql.raw(String(STALE_AFTER_MINUTES))} minutes'
    then 'stale' else ${s.state}::text end`;
/** True for a session whose stored state is open (pending, active, awaiting_input; a stale one too). */
export const isOpenSql = (state: SQLWrapper): SQL<boolean> => sql<boolean>`${state} in ${openStates}`;

export const sessionRecord = defineRecord({
  name: "AgentSession",
  resource: "agent-sessions",
  id: agentSessions.id,
  workspace: agentSessions.workspaceId,
  team: agentSessions.teamId,
  from: sql`${agentSessions}`,
  noun: "Agent session",
  fields: {
    id: f.id(agentSessions.id, { names: named(SESSION_ID), doc: { example: "ses_01jz8x4q0be0sv3c5kq9v1y2ab" } }),
    taskId: f.id(agentSessions.taskId, { names: named("task") }),
    agentId: f.id(agentSessions.agentId, { names: named("user"), doc: { description: "The agent (a user of type AGENT)" } }),
    state: f.enum(sessionStateSql(agentSessions), SessionState, {
      list: { sort: false },
      // In an event: the state its change stored (`stale` is a reading of the clock, not a change).
      stored: (image: Record<string, unknown>) => image.state,
      doc: { description: "From the last activity; `stale`: pending or active with no activity for 30 minutes" },
    }),
    createdBy: f.id(agentSessions.createdBy, {
      nullable: true,
      list: false,
      doc: { description: "Who delegated the task (null once removed)" },
    }),
    createdAt: f.datetime(agentSessions.createdAt),
    updatedAt: f.datetime(agentSessions.updatedAt),
    lastActivityAt: f.datetime(agentSessions.lastActivityAt, { nullable: true }),
    externalUrl: f.text(agentSessions.externalUrl, {
      nullable: true,
      list: false,
      doc: { description: "Where the agent shows its work, if anywhere" },
    }),
  },
});
export const AgentSession = sessionRecord.schema;
export type AgentSessionDto = z.infer<typeof AgentSession>;
export const AgentSessionSelection = sessionRecord.selection;

export const ActivityType = z.enum(agentActivityType.enumValues).openapi("AgentActivityType");
export type ActivityTypeName = z.infer<typeof ActivityType>;
const ActionText = z.string().max(20_000);
export const ActivityAction = z
  .object({ name: z.string().trim().min(1).max(200), parameter: ActionText.optional(), result: ActionText.optional() })
  .strict()
  .openapi("AgentActivityAction", { description: "What the agent did: a tool's name, what it was given, what came back" });

export const activityRecord = defineRecord({
  name: "AgentActivity",
  resource: "agent-activities",
  id: agentActivities.id,
  workspace: agentActivities.workspaceId,
  team: agentActivities.teamId,
  from: sql`${agentActivities}`,
  noun: "Agent activity",
  fields: {
    id: f.id(agentActivities.id, { names: named(ACTIVITY_ID), doc: { example: "act_01jz8x4q0be0sv3c5kq9v1y2ab" } }),
    sessionId: f.id(agentActivities.sessionId, { names: named(SESSION_ID), list: false }),
    type: f.enum(agentActivities.type, ActivityType, { list: { sort: false } }),
    body: f.text(agentActivities.body, { list: false, doc: { description: "Markdown" } }),
    action: f.json(agentActivities.action, ActivityAction.nullable()),
    createdBy: f.id(agentActivities.createdBy, { nullable: true, list: false }),
    createdAt: f.datetime(agentActivities.createdAt),
  },
});
export const AgentActivity = activityRecord.schema;
export type AgentActivityDto = z.infer<typeof AgentActivity>;
export const AgentActivitySelection = activityRecord.selection;

export const ActivityCreate = z
  .object({
    type: ActivityType.openapi({ description: "`prompt` by a person who may change the task; the others by the session's agent" }),
    body: z.string().min(1).max(20_000).openapi({ description: "Markdown, 1..20,000 characters" }),
    action: ActivityAction.optional(),
  })
  .strict()
  .openapi("AgentActivityCreate");
export type ActivityCreateInput = z.infer<typeof ActivityCreate>;

export const TaskSessionSummary = z
  .object({ id: z.string(), state: SessionState })
  .openapi("TaskSessionSummary", { description: "The open agent session of the task's delegate; null when none" });

/**
 * `session` of a task: the open session of its delegate, `{id, state}`, in the statement that reads or writes the task.
 * It reads `agent_sessions` by that name, so a write that opens one names its CTE so (the table and the new row).
 */
export const taskSessionJson = (taskId: SQLWrapper, delegateId: SQLWrapper): SQL => {
  const os = (column: string) => sql`${sql.identifier("open_session")}.${sql.identifier(column)}`;
  const state = sessionStateSql({ state: os("state"), lastActivityAt: os("last_activity_at"), createdAt: os("created_at") });
  return sql`(select json_build_object('id', ${os("id")}, 'state', ${state})
    from ${sql.identifier("agent_sessions")} as ${sql.identifier("open_session")}
    where ${os("task_id")} = ${taskId} and ${os("agent_id")} = ${delegateId} and ${isOpenSql(os("state"))}
    order by ${os("created_at")} desc limit 1)`;
};

/**
 * A delegation in a task's write (its CTE `tasks`, the written row): the delegate's open session on the task, opened
 * when it has none (the open-session key makes a concurrent delegation reuse the one that won). Then `agent_sessions`
 * names the table with the new row, so the answer's `session` (taskSessionJson) sees it in the same statement. An id
 * each row (pm_typeid): a bulk write delegates many tasks at once.
 */
export function delegationCtes(creator: SQLWrapper | string): SQL[] {
  return [
    sql`opened_sessions as (insert into public.agent_sessions (id, workspace_id, team_id, task_id, agent_id, created_by)
      select pm_typeid('ses'), tasks.workspace_id, tasks.team_id, tasks.id, tasks.delegate_id, ${creator} from tasks
      where tasks.delegate_id is not null
      on conflict (task_id, agent_id) where ${isOpenSql(sql`state`)} do nothing returning *)`,
    sql`agent_sessions as (select * from public.agent_sessions union all select * from opened_sessions)`,
  ];
}
