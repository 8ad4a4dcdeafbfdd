// The webhooks resource as one module (src/http/module.ts): its register entry and its routes, whose filters name the
// fields of the event rendering of the modules their app serves.
import { eventRenderingOf, type ResourceModule } from "../../http/module";
import { webhookRecord } from "./record";
import register from "./register";
import { webhookRoutes } from "./routes";

export default {
  name: "webhooks",
  resource: register,
  eventRecords: { webhook: webhookRecord.fields },
  routes: (_app, modules) => [webhookRoutes(eventRenderingOf(modules).filterFields)],
} satisfies ResourceModule;
