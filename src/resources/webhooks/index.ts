// The webhooks resource as one module (src/http/module.ts): its register entry and its routes, whose filters name the
// fields of the event rendering of the modules their app serves.
import { RESOURCES } from "../../core/resources";
import { eventRenderingOf, type ResourceModule } from "../../http/module";
import { webhookRecord } from "./record";
import { webhookRoutes } from "./routes";

export default {
  name: "webhooks",
  resource: RESOURCES.webhooks,
  eventRecords: { webhook: webhookRecord.fields },
  routes: (_app, modules) => [webhookRoutes(eventRenderingOf(modules).filterFields)],
} satisfies ResourceModule;
