import { newRouter } from "../../http/router";

export const userRoutes = newRouter();
