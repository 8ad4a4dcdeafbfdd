import { newRouter } from "../../http/router";

// Placeholder: filled in by the teams work.
export const teamRoutes = newRouter();
