import { newRouter } from "../../http/router";

export const workspaceRoutes = newRouter();
