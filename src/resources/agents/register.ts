// Its register entry (src/core/resources.ts).
export default {
  tag: "Agents",
  scope: "members:write",
  reads: ["agents"],
  events: { agent: { tables: ["users", "workspace_members"] } },
} as const;
