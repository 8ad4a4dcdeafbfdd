import { newRouter } from "../../http/router";

export const loginRoutes = newRouter();
