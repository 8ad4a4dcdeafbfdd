// Its register entry (src/core/resources.ts).
// A team's cycles (docs/api.md, "Cycles"): planning, as projects and milestones are (`projects:write`).
export default {
  tag: "Cycles",
  scope: "projects:write",
  reads: ["cycles"],
  conditional: true,
  table: "cycles",
  events: { cycle: { tables: ["cycles"] } },
  invalid: { cycles_no_overlap: ["startsAt", "Must not overlap another cycle of the team"] },
} as const;
