import { newRouter } from "../../http/router";

// Placeholder: filled in by the tasks work.
export const taskRoutes = newRouter();
