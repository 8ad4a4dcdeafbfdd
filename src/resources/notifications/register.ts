// Its register entry (src/core/resources.ts).
// The inbox (docs/api.md, "Inbox"): a person's own notifications and the tasks they follow; reading a task is all it takes.
export default { tag: "Inbox", scope: "read", reads: ["notifications", "subscribers"], conditional: false } as const;
