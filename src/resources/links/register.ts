// Its register entry (src/core/resources.ts).
// A task's URL links: listed and added under the task (`/tasks/{id}/links`),
// removed at `/links/{id}`.
export default {
  tag: "Tasks",
  scope: "tasks:write",
  reads: ["links"],
  conditional: false,
  events: { link: { tables: ["task_links"], actions: ["created", "deleted"] } },
} as const;
