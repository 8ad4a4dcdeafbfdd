// Its register entry (src/core/resources.ts).
export default {
  tag: "Users",
  scope: "members:write",
  reads: ["users"],
  conditional: true,
  table: "users",
  events: { member: { tables: ["users", "workspace_members"], actions: ["joined", "updated", "removed"] } },
  conflicts: { users_email_key: "An account with this email already exists" },
} as const;
