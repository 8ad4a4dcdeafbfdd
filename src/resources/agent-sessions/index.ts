// Agent sessions (docs/agents.md): what the rest of the service needs of the resource. Its register entry
// (core/resources.ts) names its scope, reads and events; its field maps (records/agent-sessions.ts) render its answers
// and events, and give tasks their `session`; the MCP tools that call its operations are mcp/agent-session-tools.ts.
export { getSession, listActivities, listSessions, postActivity, stopSession } from "./operations";
export { agentSessionRoutes } from "./routes";
