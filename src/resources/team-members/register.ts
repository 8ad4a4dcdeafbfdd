// Its register entry (src/core/resources.ts).
export default {
  tag: "Team members",
  scope: "teams:write",
  reads: ["team-members"],
  conditional: true,
  table: "team_members",
  events: { team_member: { tables: ["team_members"] } },
  conflicts: { team_members_team_user_key: "This user is already a member of the team" },
} as const;
