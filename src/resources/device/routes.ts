import { newRouter } from "../../http/router";

export const deviceRoutes = newRouter();
