import { newRouter } from "../../http/router";

export const apiKeyRoutes = newRouter();
