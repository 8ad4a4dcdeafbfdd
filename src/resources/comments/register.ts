// Its register entry (src/core/resources.ts).
export default {
  tag: "Comments",
  scope: "comments:write",
  reads: ["comments"],
  // The records comments are on (with what a task's answer embeds) and their files.
  scopeAlsoReads: ["tasks", "attachments", "projects", "milestones"],
  conditional: true,
  table: "comments",
  events: { comment: { tables: ["comments"] } },
} as const;
