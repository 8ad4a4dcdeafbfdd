// GET /sync/snapshot (docs/sync.md): the records the caller reads, of the types and teams it asks for, from one
// read-only REPEATABLE READ transaction, streamed as NDJSON in keyset batches (bounded memory: the stream's writer waits
// for the reader), then the position the stream continues from. Each record is rendered as its events' `data` renders
// it (records/events.ts, recordData, with its app's field maps), so an event after the position replaces it as it is.
import { type SQL, sql } from "drizzle-orm";
import type { Caller } from "../../auth/caller";
import { ValidationError } from "../../core/errors";
import type { WorkspaceScope } from "../../db/client";
import { inTeams, type Reach } from "../../db/scope";
import type { ResourceType } from "../../records/event-types";
import type { EventRendering } from "../../records/events";
import { namesAny } from "../../records/names";

/** Rows a batch reads: small enough that a batch is a few hundred KiB, large enough that 100,000 tasks take 200 statements. */
export const SNAPSHOT_BATCH = 500;

interface Source {
  table: string;
  /** The record's team (an expression over `t`), or null for a workspace-wide record. */
  team: string | null;
  /** Tasks, projects and cycles: their reference's separator (`ENG-12`, `ENG-P3`, `ENG-C3`). */
  referenced?: string;
  /** Tasks and projects: the join table of their labels. */
  labelled?: { table: string; key: string };
}

/** The record types a snapshot serves, each with its events' resource type (what `GET /events` names it). */
export const SNAPSHOT_SOURCES = {
  team: { table: "teams", team: "t.id" },
  team_member: { table: "team_members", team: "t.team_id" },
  label: { table: "labels", team: null },
  field: { table: "field_definitions", team: null },
  project: { table: "projects", team: "t.team_id", referenced: "-P", labelled: { table: "project_labels", key: "project_id" } },
  milestone: { table: "milestones", team: "t.team_id" },
  cycle: { table: "cycles", team: "t.team_id", referenced: "-C" },
  task: { table: "tasks", team: "t.team_id", referenced: "-", labelled: { table: "task_labels", key: "task_id" } },
  comment: { table: "comments", team: "t.team_id" },
} satisfies Partial<Record<ResourceType, Source>>;
export type SnapshotType = keyof typeof SNAPSHOT_SOURCES;
export const SNAPSHOT_TYPES = Object.keys(SNAPSHOT_SOURCES) as SnapshotType[];

/** `types=task,project`: known types, default every one; anything else is 422 at `types`. */
export function snapshotTypes(raw: string | undefined): SnapshotType[] {
  if (raw === undefined || raw.trim() === "") return SNAPSHOT_TYPES;
  const asked = [...new Set(raw.split(",").map((t) => t.trim()))];
  // Own keys only: `types=toString` names no type (`in` would find Object.prototype's).
  const unknown = asked.filter((t) => !Object.hasOwn(SNAPSHOT_SOURCES, t));
  if (unknown.length) throw new ValidationError({ types: [`Unknown type(s): ${unknown.join(", ")}; one of ${SNAPSHOT_TYPES.join(", ")}`] });
  return asked as SnapshotType[];
}

/** The caller's reach as its statements read it from the credential (caller.actor), and the teams asked for. */
interface Narrowed extends Reach {
  /** `teamIds=`: ids or prefixes (any case); undefined: every team. */
  asked: string[] | undefined;
}

type Row = Record<string, unknown> & {
  id: string;
  at: string;
  image: Record<string, unknown>;
  reference: string | null;
  labels: string[] | null;
};

/** One batch of a type's records after `after` (keyset on the list index's (created_at, id)). */
function batch(source: Source, reach: Narrowed, after: { at: string; id: string } | null): SQL {
  const t = sql.raw(source.table);
  const team = source.team === null ? null : sql.raw(source.team);
  const labelled = "labelled" in source ? source.labelled : undefined;
  const separator = "referenced" in source ? source.referenced : undefined;
  const reference = separator ? sql`(select tm.prefix from teams tm where tm.id = t.team_id) || ${separator} || t.number` : sql`null::text`;
  const labels = labelled
    ? sql`coalesce((select array_agg(l.label_id) from ${sql.raw(labelled.table)} l where l.${sql.raw(labelled.key)} = t.id), '{}')`
    : sql`null::text[]`;
  const asked = reach.asked;
  return sql`select t.id, t.created_at::text as at, pm_image(t) as image, ${reference} as reference, ${labels} as labels
    from ${t} t
    where t.workspace_id = ${reach.workspace}
      ${team === null ? sql`` : sql`and ${inTeams(reach.teams, team)}`}
      ${
        team === null || asked === undefined
          ? sql``
          : // The one name resolver: ids or prefixes, as a list's filter takes them (none asked: none of the teams').
            sql`and ${asked.length ? namesAny("team", team, asked, reach.workspace) : sql`false`}`
      }
      ${after === null ? sql`` : sql`and (t.created_at, t.id) > (${after.at}::timestamptz, ${after.id})`}
    order by t.created_at, t.id limit ${SNAPSHOT_BATCH}`;
}

/**
 * Whether the credential is live and grants the read (`live`), and the position the stream continues from: the
 * workspace's latest event below this snapshot's horizon (its xmin, as `GET /events` reads: pm_stable_position). Every
 * event of a transaction this snapshot does not see is after it; events after it of transactions it does see (they
 * committed before it began, with ids above its horizon) carry what the snapshot already holds, so applying them again
 * changes nothing (docs/sync.md). Null when the workspace has no event.
 */
const headQuery = (live: SQL, workspace: WorkspaceScope) => sql`select ${live} as live, (select e.id from events e
  where e.workspace_id = ${workspace} and e.position < pm_stable_position() order by e.position desc limit 1) as position`;
type Head = { live: boolean; position: string | null };

/**
 * The snapshot as an NDJSON stream, its records rendered by `recordData` (the app's, as its events' data); `done`
 * settles when its transaction has ended. The caller's credential is read in the snapshot's own statements and checked
 * before any byte (401/403); a failure after the first byte aborts the stream, so a reader never takes a cut snapshot for
 * a whole one (it has no position line).
 */
export async function snapshotStream(
  { recordData }: Pick<EventRendering, "recordData">,
  caller: Caller,
  query: { types?: string; teamIds?: string },
): Promise<{ body: ReadableStream<Uint8Array>; done: Promise<void> }> {
  const types = snapshotTypes(query.types);
  const asked = query.teamIds
    ?.split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  const { actor } = caller;
  const reach: Narrowed = { workspace: actor.workspace, teams: actor.teams, asked };
  const head = () => headQuery(caller.live, reach.workspace);
  const checked = async ({ live, position }: Head) => {
    if (!live) throw await caller.refused();
    caller.touch();
    return position;
  };
  const lines = (type: SnapshotType, page: Row[], takenAt: Date) =>
    page.map((r) => `${JSON.stringify({ type, record: recordData(type, r.image, r.reference, r.labels, takenAt) })}\n`);
  const positionLine = (position: string | null) => `${JSON.stringify({ position })}\n`;

  // One round trip when each type fits in one batch: the credential, the position and every type's first batch, from one
  // snapshot over the HTTP query. A full batch may have more behind it: then the snapshot is read again below, batch by
  // batch.
  const [[first], ...firsts] = (await caller.readTogether([
    head(),
    ...types.map((type) => batch(SNAPSHOT_SOURCES[type], reach, null)),
  ])) as [[Head], ...Row[][]];
  const position = await checked(first);
  if (firsts.every((page) => page.length < SNAPSHOT_BATCH)) {
    // A claim reads as live or expired at the snapshot's time.
    const takenAt = new Date();
    const text = [...types.flatMap((type, i) => lines(type, firsts[i], takenAt)), positionLine(position)].join("");
    return { body: new Blob([text]).stream(), done: Promise.resolve() };
  }

  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  const write = (lines: string[]) => writer.write(encoder.encode(lines.join("")));
  let opened: () => void = () => {};
  let refused: (err: unknown) => void = () => {};
  const started = new Promise<void>((resolve, reject) => {
    opened = resolve;
    refused = reject;
  });
  // Interactive (the WebSocket): one snapshot for every batch.
  const done = caller.db
    .transaction(
      async (tx) => {
        const { rows } = await tx.execute<Head>(head());
        const position = await checked(rows[0]);
        opened();
        // A claim reads as live or expired at the snapshot's time.
        const takenAt = new Date();
        for (const type of types) {
          const source: Source = SNAPSHOT_SOURCES[type];
          for (let after: { at: string; id: string } | null = null; ; ) {
            const page: Row[] = (await tx.execute<Row>(batch(source, reach, after))).rows;
            if (page.length) await write(lines(type, page, takenAt));
            if (page.length < SNAPSHOT_BATCH) break;
            const last: Row = page[page.length - 1];
            after = { at: last.at, id: last.id };
          }
        }
        await write([positionLine(position)]);
        await writer.close();
      },
      { isolationLevel: "repeatable read", accessMode: "read only" },
    )
    .catch(async (err) => {
      refused(err);
      console.error("snapshot stream failed", err instanceof Error ? err.message : err);
      await writer.abort(err).catch(() => {});
    });
  await started;
  return { body: readable, done };
}
