import { newRouter } from "../../http/router";

/** `POST /mcp`: the Model Context Protocol endpoint for agents (being built). */
export const mcpRoutes = newRouter();
