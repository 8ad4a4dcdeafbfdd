// Its register entry (src/core/resources.ts).
export default {
  tag: "Invites",
  scope: "members:write",
  reads: ["invites"],
  conditional: true,
  table: "invites",
  events: { invite: { tables: ["invites"] } },
} as const;
