import { newRouter } from "../../http/router";

export const inviteRoutes = newRouter();
