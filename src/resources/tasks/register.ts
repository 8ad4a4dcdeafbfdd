// Its register entry (src/core/resources.ts).
export default {
  tag: "Tasks",
  scope: "tasks:write",
  reads: ["tasks"],
  scopeAlsoReads: ["states"],
  // A task's answer carries its relations and links (`fields=relations{…}`, `links{…}`).
  embeds: ["relations", "links"],
  conditional: true,
  table: "tasks",
  events: {
    // A claim taken or renewed, and released, are events of their own (docs/agents.md, "Claims").
    task: { tables: ["tasks"], joinTables: ["task_labels"], actions: ["created", "updated", "deleted", "claimed", "released"] },
  },
  invalid: {
    // The database checks it in the statement that writes (migrations/functions/pm_task_state.sql).
    tasks_status_state: [
      "status",
      "Must name a workflow state of the task's team: its key or its name, in any case (GET /teams/{id}/states)",
    ],
  },
} as const;
