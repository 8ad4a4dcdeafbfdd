// Time tracking as one resource (docs/api.md, "Time tracking"): what the rest of the service needs of it, gathered here.
// The register's entry (core/resources.ts), the field map its events and the task's `timeTracking` render with
// (records/worklogs.ts) and the triggers (its migration) sit in the layers below, which cannot import a resource.
import { worklogRoutes } from "./routes";

export const worklogs = {
  /** Its routes, mounted by app.ts in the register's order. */
  binding: { routes: [worklogRoutes] },
};
