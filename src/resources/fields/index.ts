// The fields resource as one module (src/http/module.ts): its register entry and its routes.
import type { ResourceModule } from "../../http/module";
import { fieldRecord } from "../../records/fields";
import register from "./register";
import { fieldRoutes } from "./routes";

export default {
  name: "fields",
  resource: register,
  eventRecords: { field: fieldRecord.fields },
  routes: [fieldRoutes],
} satisfies ResourceModule;
