// The agent-session operations (docs/agents.md), one function each, called alike by the REST routes and
// the MCP tools. Reads are one statement scoped by the caller (an agent sees its own sessions, a person those of the
// tasks it reads); an activity or a stop is one statement that checks who may (the session's agent; a person who may
// change the task; the agent's owner), appends and moves the session's state, and says why it wrote nothing.
import { and, eq, type SQL, sql } from "drizzle-orm";
import { agentActivities, agentSessions, users } from "../../../drizzle/schema";
import { TASK_WRITE, taskWriteGuard, teamRoleGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { conflict, forbidden } from "../../core/errors";
import { newId } from "../../ids";
import { listChildren } from "../../records/task-children";
import { insertColumns, qualified } from "../../store/field-map";
import { type Guard, guardedWrite, type Target } from "../../store/guarded";
import type { FieldSelection, ListParams } from "../../store/list";
import { listRecords, readRecord } from "../../store/reads";
import type { Actor } from "../../store/statement-caller";
import {
  type ActivityCreateInput,
  type AgentActivityDto,
  type AgentSessionDto,
  activityRecord,
  isOpenSql,
  OPEN_STATES,
  STATE_AFTER,
  sessionRecord,
} from "./record";
import { NEWER_OPEN_SESSION } from "./register";

const sessionId = qualified(agentSessions.id);
const sessionAgent = qualified(agentSessions.agentId);
const sessionTeam = qualified(agentSessions.teamId);

/** The caller is an agent (in SQL: its user's type). */
const callerIsAgent = (actor: Actor) =>
  sql`exists (select 1 from ${users} as ${sql.identifier("viewer")} where ${sql.identifier("viewer")}.id = ${actor.user} and ${sql.identifier("viewer")}.type = 'AGENT')`;

/** What the caller sees of the sessions it reaches: an agent its own, a person all of them (those of the tasks it reads). */
const visible = (actor: Actor): SQL =>
  and(sessionRecord.inReach(actor), sql`(${sessionAgent} = ${actor.user} or not ${callerIsAgent(actor)})`)!;

/** GET /agent-sessions: one page in one query. */
export function listSessions(caller: Caller, params: ListParams): Promise<AgentSessionDto[]> {
  return listRecords(caller, sessionRecord, params, visible);
}

/** GET /agent-sessions/{id}: one statement; a session the caller does not see is 404. */
export function getSession(caller: Caller, id: string, fields: FieldSelection | null = null): Promise<AgentSessionDto> {
  return readRecord(caller, sessionRecord, id, fields, visible);
}

/** GET /agent-sessions/{id}/activities: oldest first by default, one query; a session the caller does not see is 404. */
export function listActivities(caller: Caller, id: string, params: ListParams): Promise<AgentActivityDto[]> {
  const session = {
    select: (actor: Actor) => sql`select ${sessionId} as id from ${agentSessions} where ${and(visible(actor), eq(agentSessions.id, id))}`,
    noun: sessionRecord.noun,
  };
  return listChildren(caller, session, params, { record: activityRecord, from: agentActivities, parentId: agentActivities.sessionId });
}

const notStopped: Guard = {
  holds: sql`${qualified(agentSessions.state)} <> 'stopped'`,
  refusal: () => conflict("The session was stopped: delegate the task again to start a new one"),
};
/**
 * An activity that opens the session again (a prompt, a thought…) while the agent has a newer open one on the task: at
 * most one is open per task and agent (agent_sessions_open_key), so it goes to that one.
 */
const noNewerOpen: Guard = {
  holds: sql`not exists (select 1 from ${agentSessions} as ${sql.identifier("newer")} where ${sql.identifier("newer")}.task_id = ${qualified(agentSessions.taskId)}
    and ${sql.identifier("newer")}.agent_id = ${sessionAgent} and ${sql.identifier("newer")}.id <> ${sessionId}
    and ${isOpenSql(sql`${sql.identifier("newer")}.state`)})`,
  refusal: () => conflict(NEWER_OPEN_SESSION),
};
/** The caller is a person: prompts and stops come from people (an agent answers, it does not steer). */
const byPerson = (actor: Actor, refusal: string): Guard => ({
  holds: sql`(not ${callerIsAgent(actor)})`,
  refusal: () => forbidden(refusal),
});

/** Who may post an activity of `type`: the session's agent, or for a prompt a person who may change the task. */
function activityGuards(actor: Actor, type: ActivityCreateInput["type"]): Guard[] {
  const reopening: Guard[] = (OPEN_STATES as readonly string[]).includes(STATE_AFTER[type]) ? [noNewerOpen] : [];
  if (type === "prompt") {
    return [
      byPerson(actor, `A prompt comes from a person who may ${TASK_WRITE.what}`),
      taskWriteGuard(actor, sessionTeam),
      notStopped,
      ...reopening,
    ];
  }
  return [
    { holds: sql`${sessionAgent} = ${actor.user}`, refusal: () => forbidden("Only the session's agent posts its activities") },
    notStopped,
    ...reopening,
  ];
}

/** The session `id` in the caller's workspace and teams (a team-bound credential finds no other team's: 404). */
const sessionTarget = (caller: Caller, id: string, guards: Guard[], columns: Record<string, SQL> = {}): Target => ({
  from: sql`${agentSessions}`,
  where: and(eq(agentSessions.workspaceId, caller.actor.workspace), eq(agentSessions.id, id))!,
  columns: { id: agentSessions.id, ...columns },
  guards,
  name: sessionRecord.noun,
  team: agentSessions.teamId,
  table: agentSessions,
});

/**
 * POST /agent-sessions/{id}/activities: ONE statement appends the activity and moves the session to the state it makes
 * (STATE_AFTER) with its last activity; the triggers write `agent_activity.created` and the session's event.
 */
export function postActivity(caller: Caller, id: string, input: ActivityCreateInput): Promise<AgentActivityDto> {
  const activityId = newId("act");
  const values = insertColumns(agentActivities, { type: input.type, body: input.body, action: input.action ?? null });
  return guardedWrite(
    caller,
    sessionTarget(caller, id, activityGuards(caller.actor, input.type)),
    (allowed) => ({
      ctes: [
        // Named like the table, so the answer's JSON reads the new row.
        sql`agent_activities as (insert into ${agentActivities} (id, workspace_id, team_id, session_id, task_id, agent_id, created_by, ${values.names})
        select ${activityId}, s.workspace_id, s.team_id, s.id, s.task_id, s.agent_id, ${caller.actor.user}, ${values.values}
        from public.agent_sessions s where s.id = ${allowed} returning *)`,
        sql`moved as (update public.agent_sessions set state = ${STATE_AFTER[input.type]}::agent_session_state, last_activity_at = now(), updated_at = now()
        where id = ${allowed} returning id)`,
      ],
      result: sql<AgentActivityDto>`(select ${activityRecord.json()} from agent_activities)`,
    }),
    // The session's row locked first: a stop committed meanwhile is waited for and read (409), never undone.
    { lock: "no key update" },
  );
}

/**
 * POST /agent-sessions/{id}/stop: by a person who may change the task, or the agent's owner; ONE statement. A stopped
 * session stays as it is (no second event).
 */
export function stopSession(caller: Caller, id: string): Promise<AgentSessionDto> {
  const { actor } = caller;
  const owner = sql`exists (select 1 from ${users} as ${sql.identifier("agent")} where ${sql.identifier("agent")}.id = ${sessionAgent}
    and ${sql.identifier("agent")}.human_id = ${actor.user})`;
  // A person who may change the task (the task write rule), or the agent's owner (a person) whatever its team role.
  const mayStop = [
    byPerson(actor, `Stopping a session needs the right to ${TASK_WRITE.what}, or owning its agent`),
    teamRoleGuard(actor, sessionTeam, TASK_WRITE.min, `${TASK_WRITE.what} (or own the session's agent)`, owner),
  ];
  return guardedWrite(
    caller,
    // The session as the locked read found it: what a stop committed while this one waited left.
    sessionTarget(caller, id, mayStop, { session: sessionRecord.json() }),
    (allowed) => ({
      ctes: [
        sql`agent_sessions as (update public.agent_sessions set state = 'stopped', updated_at = now()
        where id = ${allowed} and state <> 'stopped' returning *)`,
      ],
      // The stopped row (the CTE), or the session as it was already stopped, from the locked read (the statement's
      // snapshot is from before a stop it waited for).
      result: sql<AgentSessionDto>`coalesce((select ${sessionRecord.json()} from agent_sessions),
      (select session from target where id = ${allowed}))`,
    }),
    // The session's row locked first: concurrent stops and activities take turns, each reading what the other left.
    { lock: "no key update" },
  );
}
