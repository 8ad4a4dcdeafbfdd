// A collection hanging on tasks that travels in the export document, declared by the module that owns it
// (`ResourceModule.transfer`, src/http/module.ts): the export and the import (src/resources/transfer/) iterate the
// parts of the modules an app serves, and know none of them by name. A part says what its collection is in the
// document, how an export finds and writes its rows, and how an import plans and writes a page of them (or that its
// records are filed: checked, not restored). What it is handed of the export and the import is declared here, below
// the resources, since no resource imports another.
import type { z } from "@hono/zod-openapi";
import type { SQL } from "drizzle-orm";
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Tx } from "../db/client";
import type { Reach } from "../db/scope";

export const EXPORT_TYPES = ["task", "project", "team", "workspace"] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];

/** A record of an import, with the path its refusals start with (`data.data.tasks.3`, or `parts.2.data.data.tasks.3`). */
export interface Located<T> {
  record: T;
  at: string;
}

/** What an export holds, as a part's condition builds on it (the export statement's own SQL). */
export interface ExportScope {
  type: ExportType;
  workspace: string;
  /** The exported record's id, as a subquery. */
  root: SQL;
  /** The ids of the export's tasks, as a subquery. */
  tasks: SQL;
  /** The ids of the teams the export's records are in (a task's or project's team, the team, every team), as a subquery. */
  teams: SQL;
  /** The rows of a table hanging on tasks that an export holds: those of its tasks (a comment's carry its task's id too). */
  onTasks(table: { workspaceId: AnyPgColumn; teamId: AnyPgColumn; taskId: AnyPgColumn }): SQL;
}

/** How an export pages a part's rows: in (createdAt, id) order, each as the JSON its record makes. */
export interface PartExport {
  table: PgTable & { id: AnyPgColumn; createdAt: AnyPgColumn };
  /** Who made each row: the export carries the users they point at (none: a cycle). */
  creator?: AnyPgColumn;
  /** The rows the export holds. */
  condition(scope: ExportScope): SQL;
  record: { exportJson(): SQL };
}

/** The import's plan as a part's pages use it: the target, the refusals, and what the planners before them decided. */
export interface ImportPlan {
  /** `teamId`: a team import's target team (everything goes into it); none in a workspace import (its teams are new). */
  readonly target: { workspaceId: string; callerId: string; update: boolean; teamId?: string };
  /** A refusal at `path` (a 422 once every record was planned). */
  fail(path: string, message: string): void;
  /** With `update`, a record whose id exists in the target keeps it and is overwritten. */
  kept(id: string): boolean;
  /** The target member an export user stands for; null for nobody. */
  user(id: string | null): string | null;
  /** The team a record of the export goes into (refused at `path` when it is not a team of the export). */
  teamOf(id: string, path?: string): string;
  /** Task `id` of the export, as the target's id and team; null (refused at `path`: not a task of the export) when it is not one. */
  task(id: string, path: string): { id: string; teamId: string } | null;
}

/** What an import hands a part: its transaction, plan, the caller's reach, and its bulk insert (an upsert with `overwrite`). */
export interface ImportContext {
  tx: Tx;
  plan: ImportPlan;
  reach: Reach;
  insert<T extends PgTable>(table: T, rows: T["$inferInsert"][], overwrite?: string[] | "keep"): Promise<void>;
}

/** A part's import, made for one import (so it may keep what its pages planned until `finish`). */
export interface PartImporter<R> {
  /** Plans a page of its records, after the tasks and comments, then writes it while `writing()` holds. */
  page(page: Located<R>[], writing: () => boolean): Promise<void>;
  /** Once every page was planned and nothing was refused: the checks that need every written row. */
  finish?(): Promise<void>;
}

/** A part the import plans and writes, page by page. */
export interface PagedImport<R> {
  /**
   * Those of `ids` (the import's record ids, a `text[]`) that are its records in `team` already, as `select id, null`
   * rows: an update overwrites them (`kept`).
   */
  existing?(team: SQL, ids: SQL): SQL;
  start(context: ImportContext): PartImporter<R>;
}

/** A part whose records an import checks and does not restore: each names its task (and comment), which the answer places. */
export interface FiledImport {
  filed: {
    /** The import's rule for it, in the import routes' descriptions. */
    rule: string;
    /** What the answer's `ids` are for. */
    answer: string;
  };
}

export interface TransferPart<R = unknown> {
  /** Its collection in the document's `data`. */
  collection: string;
  /** The collection it precedes in the document (its module's place in the list of modules otherwise). */
  before?: string;
  /**
   * Its records are what the tasks' values name (a team's workflow states, which a task's status names): an import
   * writes them after the teams and before the tasks.
   */
  beforeTasks?: true;
  /** One record of it as an export writes it and an import checks it (a named component). */
  schema: z.ZodType<R>;
  /** The collection's description; a document from before it travelled has none (`[]`). */
  description: string;
  /** The export route's description names it among what an export carries. */
  listed?: true;
  export: PartExport;
  import: PagedImport<R> | FiledImport;
}

/** A part's import whose pages are rows of `table`, planned by `plan`: a row the target has already (a unique key) stays as it is. */
export const insertedPages =
  <R, T extends PgTable>(table: T, plan: (plan: ImportPlan, page: Located<R>[]) => Omit<T["$inferInsert"], "workspaceId">[]) =>
  ({ plan: state, insert }: ImportContext): PartImporter<R> => ({
    async page(page, writing) {
      const rows = plan(state, page);
      if (!writing()) return;
      await insert(
        table,
        rows.map((row) => ({ ...row, workspaceId: state.target.workspaceId }) as T["$inferInsert"]),
        "keep",
      );
    },
  });
