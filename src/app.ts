import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { etag } from "hono/etag";
import { requestId } from "hono/request-id";
import { AppError } from "./core/errors";
import { errorResponse } from "./http/error-mapper";
import { rejectNulCharacters } from "./http/nul-guard";
import { requestDb } from "./http/request-db";
import { newRouter } from "./http/router";
import { agentRoutes } from "./resources/agents/routes";
import { apiKeyRoutes } from "./resources/api-keys/routes";
import { commentRoutes } from "./resources/comments/routes";
import { deviceRoutes } from "./resources/device/routes";
import { inviteRoutes } from "./resources/invites/routes";
import { labelRoutes } from "./resources/labels/routes";
import { loginRoutes } from "./resources/login/routes";
import { mcpRoutes } from "./resources/mcp/routes";
import { meRoutes } from "./resources/me/routes";
import { milestoneRoutes } from "./resources/milestones/routes";
import { projectRoutes } from "./resources/projects/routes";
import { signupRoutes } from "./resources/signup/routes";
import { benchRoutes } from "./resources/system/bench";
import { docsRoutes } from "./resources/system/docs";
import { systemRoutes } from "./resources/system/routes";
import { taskRoutes } from "./resources/tasks/routes";
import { teamMemberRoutes } from "./resources/team-members/routes";
import { teamRoutes } from "./resources/teams/routes";
import { userRoutes } from "./resources/users/routes";
import { workspaceRoutes } from "./resources/workspaces/routes";

const MAX_BODY_BYTES = 1024 * 1024;

export function buildApp() {
  const app = newRouter();

  app.use("*", requestId());
  app.use("*", requestDb);
  app.use(
    "*",
    cors({
      origin: "*",
      exposeHeaders: [
        "x-request-id",
        "Server-Timing",
        "ETag",
        "Location",
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
        "Retry-After",
      ],
    }),
  );
  app.use(
    "*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new AppError("PAYLOAD_TOO_LARGE", "Request body is larger than 1 MiB");
      },
    }),
  );
  app.use("*", rejectNulCharacters);
  app.use("*", etag({ weak: true }));
  app.use("/_bench/*", async (c, next) => {
    if (c.env.BENCH_ROUTES !== "true") throw new AppError("NOT_FOUND", "Route not found");
    await next();
  });

  app.route("/", systemRoutes);
  app.route("/", benchRoutes);
  app.route("/", signupRoutes);
  app.route("/", loginRoutes);
  app.route("/", deviceRoutes);
  app.route("/", meRoutes);
  app.route("/", userRoutes);
  app.route("/", workspaceRoutes);
  app.route("/", inviteRoutes);
  app.route("/", agentRoutes);
  app.route("/", apiKeyRoutes);
  app.route("/", labelRoutes);
  app.route("/", teamRoutes);
  app.route("/", teamMemberRoutes);
  app.route("/", taskRoutes);
  app.route("/", projectRoutes);
  app.route("/", milestoneRoutes);
  app.route("/", commentRoutes);
  app.route("/", mcpRoutes);

  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", { type: "apiKey", in: "header", name: "svc-api-key" });
  app.openAPIRegistry.registerComponent("securitySchemes", "Bearer", { type: "http", scheme: "bearer", bearerFormat: "JWT" });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Project Management API",
      version: "1.0.0",
      description: "Workspaces, teams, tasks, projects, milestones, labels, comments, invites, agents and more.",
    },
  });
  app.route("/", docsRoutes);

  app.notFound((c) => c.json({ error: { code: "NOT_FOUND", message: `No route for ${c.req.method} ${c.req.path}` } }, 404));
  app.onError(errorResponse);
  return app;
}

export const app = buildApp();
