import { newRouter } from "../../http/router";

// Placeholder: filled in by the team-members work.
export const teamMemberRoutes = newRouter();
