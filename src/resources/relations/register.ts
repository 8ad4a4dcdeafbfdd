// Its register entry (src/core/resources.ts).
// Relations between tasks: made and removed under the task
// (`/tasks/{id}/relations`).
export default {
  tag: "Tasks",
  scope: "tasks:write",
  reads: ["relations"],
  conditional: false,
  events: { task_relation: { tables: ["task_relations"], actions: ["created", "deleted"] } },
} as const;
