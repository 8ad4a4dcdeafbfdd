// `pm sync DIR`: keeps a folder of JSON records current (docs/sync.md): a snapshot (GET /sync/snapshot) written as one
// file a record (`DIR/<type>/<id>.json`), then every event after the snapshot's position applied (its data written, a
// delete removing the file). The position is stored in `DIR/.pm-sync.json` after each page, so a run resumes where the
// last one stopped; a position the stream no longer keeps (410) takes a new snapshot.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { defineCommand } from "citty";
import { commonArgs } from "../argv";
import { ApiError, ConnectionError, UsageError } from "../errors";
import { openSession, type Session } from "../session";
import { drain, sleep } from "./events";

const STATE = ".pm-sync.json";
const TYPES = ["team", "team_member", "label", "field", "project", "milestone", "task", "comment"];

interface State {
  position: string | null;
  types: string[];
}

/** Writes `file` whole or not at all (a run stopped midway leaves the old file, never half a record). */
function writeAtomic(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

const recordFile = (dir: string, type: string, id: string) => path.join(dir, type, `${id}.json`);
const readState = (dir: string): State | null => {
  try {
    return JSON.parse(readFileSync(path.join(dir, STATE), "utf8")) as State;
  } catch {
    return null;
  }
};
const saveState = (dir: string, state: State) => writeAtomic(path.join(dir, STATE), `${JSON.stringify(state)}\n`);

/** The lines of an NDJSON body as they arrive (one line in memory at a time, besides the chunk being read). */
async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let end = buffered.indexOf("\n");
    for (; end >= 0; end = buffered.indexOf("\n")) {
      yield buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
    }
  }
  if (buffered) yield buffered;
}

/** A new snapshot: every record written, the files of records it does not hold removed; its position. */
async function takeSnapshot(session: Session, dir: string, types: string[]): Promise<string | null> {
  const { data, error, response } = await session.client.GET("/sync/snapshot", {
    params: { query: { types: types.join(",") } },
    parseAs: "stream",
  });
  if (!response.ok || !data) throw ApiError.fromBody(response.status, error);
  const kept = new Set<string>();
  let position: string | null | undefined;
  for await (const line of lines(data as ReadableStream<Uint8Array>)) {
    if (!line) continue;
    const parsed = JSON.parse(line) as { type?: string; record?: { id: string }; position?: string | null };
    if (parsed.type && parsed.record) {
      const file = recordFile(dir, parsed.type, parsed.record.id);
      writeAtomic(file, `${JSON.stringify(parsed.record, null, 2)}\n`);
      kept.add(file);
    } else if ("position" in parsed) position = parsed.position ?? null;
  }
  // No position line: the stream was cut; nothing is stored as done.
  if (position === undefined) throw new ConnectionError("the snapshot was cut short; run `pm sync` again");
  for (const type of types) {
    const folder = path.join(dir, type);
    let names: string[] = [];
    try {
      names = readdirSync(folder);
    } catch {}
    for (const name of names) if (!kept.has(path.join(folder, name))) rmSync(path.join(folder, name), { force: true });
  }
  return position;
}

/** Applies every event committed now after the state's position, saving the position after each one. */
async function catchUp(session: Session, dir: string, state: State): Promise<number> {
  let applied = 0;
  await drain(
    session,
    { limit: 250 },
    state.position ?? undefined,
    async (event) => {
      if (state.types.includes(event.resourceType)) {
        const file = recordFile(dir, event.resourceType, event.resourceId);
        if (event.type.endsWith(".deleted")) rmSync(file, { force: true });
        else writeAtomic(file, `${JSON.stringify(event.data, null, 2)}\n`);
        applied++;
      }
      state.position = event.id;
      saveState(dir, state);
    },
    false,
  );
  return applied;
}

export const sync = defineCommand({
  meta: {
    name: "pm sync",
    description:
      "Keep DIR a current copy of the workspace's records, one JSON file a record (DIR/<type>/<id>.json): a snapshot the " +
      "first time, then the changes since the last run (DIR/.pm-sync.json holds where it stopped); --follow keeps applying them",
  },
  args: {
    dir: { type: "positional", required: true, valueHint: "DIR", description: "The folder to keep current" },
    types: {
      type: "string",
      valueHint: "task,project",
      description: `Record types, default all: ${TYPES.join(", ")}; other types than last time take a new snapshot`,
    },
    follow: { type: "boolean", alias: "f", description: "Keep applying new changes until Ctrl-C" },
    interval: { type: "string", valueHint: "seconds", description: "With --follow: seconds between polls (default 2)" },
    workspace: commonArgs.workspace,
    "base-url": commonArgs["base-url"],
  },
  async run({ args }) {
    const types = args.types ? args.types.split(",").map((t) => t.trim()) : TYPES;
    const unknown = types.filter((t) => !TYPES.includes(t));
    if (unknown.length) throw new UsageError(`--types: unknown ${unknown.join(", ")} (one of ${TYPES.join(", ")})`);
    const interval = Number(args.interval ?? "2");
    if (!(interval > 0)) throw new UsageError(`--interval must be a number of seconds above 0 (got '${args.interval}')`);
    const dir = path.resolve(args.dir);
    const session = openSession(args);
    const stored = readState(dir);
    let state: State;
    const fresh = async (why: string) => {
      console.error(why);
      const position = await takeSnapshot(session, dir, types);
      state = { position, types };
      saveState(dir, state);
    };
    if (stored && stored.types.join() === types.join()) state = stored;
    else await fresh(stored ? "types changed: taking a new snapshot" : `taking a snapshot into ${dir}`);
    const step = async () => {
      try {
        return await catchUp(session, dir, state);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 410) throw error;
        await fresh("the stored position is older than the events kept (30 days): taking a new snapshot");
        return catchUp(session, dir, state);
      }
    };
    const applied = await step();
    console.error(`applied ${applied} change(s); at ${state!.position ?? "the start"}`);
    if (!args.follow) return;
    const stop = new AbortController();
    process.once("SIGINT", () => stop.abort());
    process.once("SIGTERM", () => stop.abort());
    while (!stop.signal.aborted) {
      await sleep(interval * 1000, stop.signal);
      if (stop.signal.aborted) break;
      await step().catch((error) => {
        if (!(error instanceof ConnectionError)) throw error;
        console.error(`warning: ${error.message}; trying again in ${interval}s`);
      });
    }
  },
});
