// Its register entry (src/core/resources.ts).
export default {
  tag: "Fields",
  scope: "fields:write",
  reads: ["fields"],
  conditional: true,
  table: "field_definitions",
  events: { field: { tables: ["field_definitions"] } },
  conflicts: { field_definitions_workspace_key_key: "A field with this key already exists in the workspace" },
} as const;
