// The api-keys resource as one module (src/http/module.ts): its register entry and its routes.
import type { ResourceModule } from "../../http/module";
import { apiKeyRecord } from "./record";
import register from "./register";
import { apiKeyRoutes } from "./routes";

export default {
  name: "api-keys",
  resource: register,
  eventRecords: { api_key: apiKeyRecord.fields },
  routes: [apiKeyRoutes],
} satisfies ResourceModule;
