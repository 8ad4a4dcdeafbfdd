// The api-keys resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { apiKeyRecord } from "./record";
import { apiKeyRoutes } from "./routes";

export default {
  name: "api-keys",
  resource: RESOURCES["api-keys"],
  eventRecords: { api_key: apiKeyRecord.fields },
  routes: [apiKeyRoutes],
} satisfies ResourceModule;
