// An app's export and import: the parts its modules declare (parts.ts) and the document's schemas made with them,
// built once per app so that its export routes and its staged import's share one set of named schemas.
import type { ResourceModule } from "../../http/module";
import { type Parts, partsOf } from "./parts";
import { type DocumentSchemas, documentSchemas } from "./schema";

/** The export and import of an app: its parts and the document's schemas (its answers' too). */
export interface Transfer {
  parts: Parts;
  schemas: DocumentSchemas;
}

const built = new WeakMap<readonly ResourceModule[], Transfer>();
/** The app serving `modules`'s: built once, so its export and import routes share one set of schemas. */
export function transferOf(modules: readonly ResourceModule[]): Transfer {
  let transfer = built.get(modules);
  if (!transfer) {
    const parts = partsOf(modules);
    transfer = { parts, schemas: documentSchemas(parts) };
    built.set(modules, transfer);
  }
  return transfer;
}
