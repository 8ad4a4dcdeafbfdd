// The collections hanging on tasks that an app's export document carries: the parts its modules declare
// (`ResourceModule.transfer`, src/store/transfer-part.ts), in the document's order. Transfer names none of them: the
// export, the import, the staged import and the document's schema iterate these.
import type { ResourceModule } from "../../http/module";
import type { FiledImport, PagedImport, TransferPart } from "../../store/transfer-part";

export interface Parts {
  /** Every part, in the document's order (after the tasks and comments). */
  all: readonly TransferPart[];
  /** Those an import plans and writes, page by page, in that order. */
  paged: ReadonlyArray<TransferPart & { import: PagedImport<unknown> }>;
  /** Those whose records an import checks and does not restore (their tasks and comments are placed in its answer). */
  filed: ReadonlyArray<TransferPart & { import: FiledImport }>;
}

/** The parts in their modules' order, each declaring `before` placed before that one (if the app serves it). */
function inOrder(parts: readonly TransferPart[]): TransferPart[] {
  const served = (p: TransferPart) => p.before !== undefined && parts.some((q) => q.collection === p.before);
  const placed = parts.filter((p) => !served(p));
  let pending = parts.filter(served);
  while (pending.length) {
    const ready = pending.filter((p) => placed.some((q) => q.collection === p.before));
    if (!ready.length) throw new Error(`Export parts placed before each other: ${pending.map((p) => p.collection).join(", ")}`);
    for (const p of ready)
      placed.splice(
        placed.findIndex((q) => q.collection === p.before),
        0,
        p,
      );
    pending = pending.filter((p) => !ready.includes(p));
  }
  return placed;
}

export function partsOf(modules: readonly ResourceModule[]): Parts {
  const all = inOrder(modules.flatMap((m) => m.transfer ?? []));
  return {
    all,
    paged: all.filter((p): p is TransferPart & { import: PagedImport<unknown> } => !("filed" in p.import)),
    filed: all.filter((p): p is TransferPart & { import: FiledImport } => "filed" in p.import),
  };
}
