// Its register entry (src/core/resources.ts).
export default {
  tag: "API keys",
  scope: "keys:write",
  reads: ["api-keys"],
  conditional: true,
  table: "api_keys",
  events: { api_key: { tables: ["api_keys"] } },
} as const;
