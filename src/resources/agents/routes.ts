import { newRouter } from "../../http/router";

export const agentRoutes = newRouter();
