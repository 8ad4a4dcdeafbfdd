// Its register entry (src/core/resources.ts).
export default {
  tag: "Milestones",
  scope: "projects:write",
  reads: ["milestones"],
  conditional: true,
  table: "milestones",
  events: { milestone: { tables: ["milestones"] } },
} as const;
