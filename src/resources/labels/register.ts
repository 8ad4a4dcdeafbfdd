// Its register entry (src/core/resources.ts).
export default {
  tag: "Labels",
  scope: "labels:write",
  reads: ["labels"],
  conditional: true,
  table: "labels",
  events: { label: { tables: ["labels"] } },
  conflicts: { labels_workspace_name_key: "A label with this name already exists in the workspace" },
} as const;
