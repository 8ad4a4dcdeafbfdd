// The fields resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { fieldRecord } from "../../records/fields";
import { fieldRoutes } from "./routes";

export default {
  name: "fields",
  resource: RESOURCES.fields,
  eventRecords: { field: fieldRecord.fields },
  routes: [fieldRoutes],
} satisfies ResourceModule;
