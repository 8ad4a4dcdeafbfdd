import { newRouter } from "../../http/router";

// Placeholder: filled in by the comments work.
export const commentRoutes = newRouter();
