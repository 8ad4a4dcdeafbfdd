import { newRouter } from "../../http/router";

// Placeholder: filled in by the projects work.
export const projectRoutes = newRouter();
