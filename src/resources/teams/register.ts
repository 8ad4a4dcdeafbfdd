// Its register entry (src/core/resources.ts).
export default {
  tag: "Teams",
  scope: "teams:write",
  reads: ["teams", "members"],
  conditional: true,
  table: "teams",
  events: { team: { tables: ["teams"] } },
  conflicts: { teams_workspace_prefix_key: "A team with this prefix already exists in the workspace" },
} as const;
