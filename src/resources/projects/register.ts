// Its register entry (src/core/resources.ts).
export default {
  tag: "Projects",
  scope: "projects:write",
  reads: ["projects"],
  conditional: true,
  table: "projects",
  events: { project: { tables: ["projects"], joinTables: ["project_labels"] } },
} as const;
