// Where an import's records come from: the request's own export document (POST /teams/{id}/import, POST
// /workspaces/import), or the parts staged for an import sent in parts (staged.ts). The import itself (import.ts) reads
// the small collections at once and the tasks, the comments and the paged parts' records a page at a time, in the
// document's order, whichever it is.
import { type SQL, sql } from "drizzle-orm";
import type { Located } from "../../store/transfer-part";
import type { ExportedComment } from "../comments/record";
import type { ExportedTask } from "../tasks/record";
import type { Parts } from "./parts";
import { type Filed, filedRecords, type ImportHead } from "./plan";
import { type ExportDocumentDto, recordsOf } from "./schema";

/** The records of `collection` a page holds: a task, a comment, or a part's (checked by its schema). */
type PagedRecord<C extends string> = C extends "tasks" ? ExportedTask : C extends "comments" ? ExportedComment : unknown;

export interface ImportSource {
  /** The export's type, root and workspace, every collection but the paged ones, and the records its filed parts hang on. */
  head(): Promise<ImportHead>;
  /** The tasks, the comments or a paged part's records, in the document's order, `size` at a time. */
  pages<C extends string>(collection: C, size: number): AsyncIterable<Located<PagedRecord<C>>[]>;
  /** Every record id of the import, as a `text[]` expression (an update looks for them in the target). */
  ids: SQL<string[]>;
  /** Where a refusal of the export's type points. */
  typePath: string;
}

const COLLECTIONS = ["users", "labels", "fields", "teams", "projects", "milestones"] as const;

/** A whole export document, as an import request carries it (at `data`): its records' paths start with `data.data.`. */
export function documentSource(parts: Parts, doc: ExportDocumentDto): ImportSource {
  const located = <T>(list: T[], name: string): Located<T>[] => list.map((record, i) => ({ record, at: `data.data.${name}.${i}` }));
  const d = doc.data;
  const ids = [d.labels, d.projects, d.milestones, d.tasks, d.comments, ...parts.paged.map((p) => recordsOf(d, p.collection))].flatMap(
    (list) => list.map((r) => r.id),
  );
  return {
    head: async () => ({
      type: doc.type,
      root: d.root,
      workspace: d.workspace,
      ...(Object.fromEntries(COLLECTIONS.map((name) => [name, located(d[name] as unknown[], name)])) as Pick<
        ImportHead,
        (typeof COLLECTIONS)[number]
      >),
      filed: filedRecords(parts.filed.flatMap((p) => located(recordsOf<Filed & { id: string }>(d, p.collection), p.collection))),
    }),
    async *pages<C extends string>(collection: C, size: number) {
      const list = recordsOf<PagedRecord<C> & { id: string }>(d, collection);
      for (let i = 0; i < list.length; i += size)
        yield list.slice(i, i + size).map((record, j) => ({ record, at: `data.data.${collection}.${i + j}` }));
    },
    ids: sql<string[]>`${sql.param(ids)}::text[]`,
    typePath: "data.type",
  };
}
