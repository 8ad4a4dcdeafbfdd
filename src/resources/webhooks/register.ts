// Its register entry (src/core/resources.ts).
export default {
  tag: "Webhooks",
  scope: "webhooks:write",
  reads: ["webhooks", "deliveries"],
  conditional: true,
  table: "webhooks",
  events: { webhook: { tables: ["webhooks"] } },
} as const;
