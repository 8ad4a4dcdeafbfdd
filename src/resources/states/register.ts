// Its register entry (src/core/resources.ts).
// A team's workflow states (docs/api.md, "Workflow states"): part of its set-up (`teams:write`, and a team ADMIN); whoever writes tasks
// reads them too, to move a task to a state by its category.
export default {
  tag: "Workflow states",
  scope: "teams:write",
  reads: ["states"],
  conditional: true,
  table: "workflow_states",
  events: { state: { tables: ["workflow_states"] } },
  conflicts: {
    workflow_states_team_key_key: "A workflow state with this key already exists in the team",
    workflow_states_team_name_key: "A workflow state with this name already exists in the team (names compare in any case)",
  },
} as const;
