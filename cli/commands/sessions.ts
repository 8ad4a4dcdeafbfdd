// Delegation to agents (docs/agents.md): `pm tasks delegate ENG-12 --to <agent>` (the task's delegate; its agent session
// opens), `pm sessions` (the sessions the caller sees: an agent its own) and `pm sessions view <id>` (one, with its
// activities, oldest first).
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { addFilter, everyPage, listArgs, listQuery, printList } from "../list";
import { cell, printJson, printRecord, printTable } from "../output";
import { openSession, unwrap } from "../session";

type Session = Schemas["AgentSessionSelection"];

export const delegate = defineCommand({
  meta: { name: "pm tasks delegate", description: "Delegate a task to an agent (the assignee stays); --to none clears it" },
  args: {
    ref: { type: "positional", description: "Task reference (ENG-12, any case) or id", valueHint: "ref", required: true },
    to: { type: "string", valueHint: "agent", description: "The agent: its id or email, or none", required: true },
    ...commonArgs,
  },
  async run({ args }) {
    const { client } = openSession(args);
    const delegateId = args.to === "none" ? null : args.to;
    const answer = await unwrap(client.PATCH("/tasks/{id}", { params: { path: { id: args.ref } }, body: { delegateId } }));
    if (args.json) return printJson(answer);
    const { task } = answer;
    if (!task.delegateId) return console.log(`${task.reference} has no delegate`);
    printRecord([
      ["task", `${task.reference} ${task.title}`],
      ["delegate", task.delegateId],
      ["session", task.session ? `${task.session.id} (${task.session.state})` : "none open"],
    ]);
  },
});

const listDefs = {
  state: { type: "string", valueHint: "state", description: "Only sessions in this state (pending, active, awaiting_input, stale, …)" },
  task: { type: "string", valueHint: "ENG-12", description: "Only the sessions of this task" },
  agent: { type: "string", valueHint: "agent", description: "Only this agent's sessions (id or email)" },
  ...listArgs,
  ...commonArgs,
} as const;

const list = defineCommand({
  meta: { name: "pm sessions list", description: "List agent sessions (an agent sees its own)" },
  args: listDefs,
  async run({ args, rawArgs }) {
    const query = listQuery(args, rawArgs, listDefs);
    if (args.state) addFilter(query, "eq", "state", args.state);
    if (args.task) addFilter(query, "eq", "taskId", args.task);
    if (args.agent) addFilter(query, "eq", "agentId", args.agent);
    const { client } = openSession(args);
    await printList(args, (q) => unwrap(client.GET("/agent-sessions", { params: { query: q } })), query, "sessions", [
      { header: "ID", value: (s: Session) => s.id },
      { header: "STATE", value: (s: Session) => s.state },
      { header: "TASK", value: (s: Session) => s.taskId },
      { header: "AGENT", value: (s: Session) => s.agentId },
      { header: "LAST ACTIVITY", value: (s: Session) => s.lastActivityAt ?? "" },
    ]);
  },
});

const view = defineCommand({
  meta: { name: "pm sessions view", description: "A session with its activities, oldest first" },
  args: { id: { type: "positional", description: "The session's id (ses_…)", required: true }, ...commonArgs },
  async run({ args }) {
    const { client } = openSession(args);
    const path = { id: args.id };
    const { session } = await unwrap(client.GET("/agent-sessions/{id}", { params: { path } }));
    const read = (query: { limit: number; cursor?: string }) =>
      unwrap(client.GET("/agent-sessions/{id}/activities", { params: { path, query } }));
    const { activities } = await everyPage<"activities", Schemas["AgentActivitySelection"]>(await read({ limit: 250 }), (cursor, limit) =>
      read({ cursor, limit }),
    );
    if (args.json) return printJson({ session, activities });
    printRecord([
      ["session", session.id],
      ["state", session.state],
      ["task", session.taskId],
      ["agent", session.agentId],
      ["created", session.createdAt],
    ]);
    console.log("");
    printTable(activities, [
      { header: "WHEN", value: (a) => a.createdAt },
      { header: "TYPE", value: (a) => a.type },
      { header: "BODY", value: (a) => cell(a.action ? `${a.body} [${a.action.name}]` : a.body) },
    ]);
  },
});

export const sessions = defineCommand({
  meta: { name: "pm sessions", description: "Agent sessions: the work of agents on delegated tasks" },
  subCommands: { list, view },
});
