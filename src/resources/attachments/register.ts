// Its register entry (src/core/resources.ts).
export default {
  tag: "Attachments",
  // Deleting a task's file changes the task (`tasks:write`), a comment's the comment (its route also takes `comments:write`).
  scope: "tasks:write",
  reads: ["attachments"],
  conditional: false,
  events: { attachment: { tables: ["attachments"], actions: ["created", "deleted"] } },
} as const;
