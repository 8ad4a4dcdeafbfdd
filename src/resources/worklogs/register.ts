// Its register entry (src/core/resources.ts).
// Time logged on a task: a change of the task's time (`tasks:write`), logged
// under the task (`/tasks/{id}/worklogs`).
export default {
  tag: "Worklogs",
  scope: "tasks:write",
  reads: ["worklogs"],
  conditional: true,
  table: "worklogs",
  events: { worklog: { tables: ["worklogs"] } },
} as const;
