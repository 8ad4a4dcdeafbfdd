import { newRouter } from "../../http/router";

// Placeholder: filled in by the milestones work.
export const milestoneRoutes = newRouter();
