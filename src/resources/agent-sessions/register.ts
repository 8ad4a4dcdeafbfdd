// Its register entry (src/core/resources.ts).
// Delegation to agents (docs/agents.md): a task's delegate works in a session;
// its activities and a person's prompt or stop change the task's work, so they need `tasks:write`.

/** Why an activity that would open a session again is refused while the agent has a newer open one on the task. */
export const NEWER_OPEN_SESSION = "This agent has a newer open session on this task: post to that one";

export default {
  tag: "Agent sessions",
  scope: "tasks:write",
  reads: ["agent-sessions", "activities"],
  conditional: false,
  events: {
    agent_session: { tables: ["agent_sessions"], actions: ["created", "updated", "prompted", "stopped"] },
    agent_activity: { tables: ["agent_activities"], actions: ["created"] },
  },
  // An activity's guard says it first; this is a delegation that opened the newer session in the meantime.
  conflicts: { agent_sessions_open_key: NEWER_OPEN_SESSION },
} as const;
