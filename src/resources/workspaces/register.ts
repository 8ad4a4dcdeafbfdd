// Its register entry (src/core/resources.ts).
export default {
  tag: "Workspaces",
  scope: "members:write",
  reads: ["workspaces"],
  conditional: true,
  table: "workspaces",
  events: { workspace: { tables: ["workspaces"] } },
  conflicts: { workspaces_slug_key: "A workspace with this slug already exists" },
} as const;
