// `pm export` and `pm import`: a task, project, team or workspace out as its export document (streamed to standard
// output or a file as the API sends it, so no size is too large), and an export document back in: in one request up to
// 8 MiB, else in parts of 8 MiB (client/transfer.js), committed in one transaction either way. A request may carry 32
// MiB, but the API Worker holds a one-request import parsed, up to 3 times its size, and has 128 MB; a part it stores.
import { createWriteStream, readFileSync, writeFileSync } from "node:fs";
import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { pipeline } from "node:stream/promises";
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { PART_BYTES, splitExport } from "../../client/transfer.js";
import { commonArgs } from "../argv";
import { keepLogin, readLogin } from "../config";
import { NotLoggedInError, UsageError } from "../errors";
import { printJson } from "../output";
import { openSession, type Session, unwrap } from "../session";
import { loginOf, revokeLogin } from "../tokens";
import { approvedLogin } from "./login";
import { downloadFiles, requireFiles, uploadFiles } from "./transfer-files";

const TYPES = ["task", "project", "team", "workspace"] as const;
type ExportType = (typeof TYPES)[number];

/** What `pm export <type> [id]` names, passed as given (the API takes a prefix or reference too); the workspace by default the credential's. */
async function exportedId(session: Session, type: ExportType, id: string | undefined): Promise<string> {
  if (type === "workspace") return id ?? (await unwrap(session.client.GET("/me"))).workspace.id;
  if (!id) throw new UsageError(`which ${type}? give its ${type === "team" ? "prefix or id" : "reference or id"}`);
  return id;
}

export const exportCommand = defineCommand({
  meta: { name: "pm export", description: "Write the export document of a task, project, team or workspace (streamed)" },
  args: {
    type: { type: "positional", description: "task, project, team or workspace", valueHint: "type", required: true },
    id: {
      type: "positional",
      description: "Its reference (ENG-12, ENG-P3) or id; a team's prefix; for the workspace, yours when left out",
      valueHint: "id",
      required: false,
    },
    output: { type: "string", alias: "o", valueHint: "file", description: "Write it to this file instead of standard output" },
    files: { type: "string", valueHint: "dir", description: "Also download the attachments' bytes into this folder (at each one's path)" },
    "base-url": commonArgs["base-url"],
  },
  async run({ args }) {
    const type = args.type as ExportType;
    if (!TYPES.includes(type)) throw new UsageError(`cannot export a '${args.type}': one of ${TYPES.join(", ")}`);
    const session = openSession(args);
    const id = await exportedId(session, type, args.id);
    // The four export operations take the same parameters and answer the same document.
    const path = `/${type}s/{id}/export` as "/teams/{id}/export";
    // The document's text as it comes: a large export is never held whole, here or in the API.
    const body = await unwrap(session.client.GET(path, { params: { path: { id } }, parseAs: "stream" }));
    if (args.files) {
      // The files are listed in the document: read whole here, to find them.
      const doc = await text(Readable.fromWeb(body as ReadableStream<Uint8Array>));
      if (args.output) writeFileSync(args.output, doc);
      else process.stdout.write(doc);
      return downloadFiles(session, JSON.parse(doc), args.files);
    }
    await pipeline(Readable.fromWeb(body as ReadableStream<Uint8Array>), args.output ? createWriteStream(args.output) : process.stdout);
  },
});

type Imported = Schemas["TeamImported"] | Schemas["WorkspaceImported"];

/** Approvals of a login to the new workspace asked for before pm gives up (each one a person's doing). */
const APPROVALS = 3;

/**
 * A session in the new workspace an import made, to upload its files there: a credential reaches its own workspace
 * only, so the person approves a login to the new one (`pm login`'s device flow, choosing it on the page), with the
 * scopes of the login in use. It is kept beside that login: `pm workspace use SLUG` switches to it.
 */
async function newWorkspaceSession(baseUrl: string, current: string | undefined, workspace: Schemas["Workspace"]): Promise<Session> {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const where = `To upload the files into the new workspace ${workspace.name}, approve a login to it (workspace: ${workspace.slug})`;
  for (let i = 0; i < APPROVALS; i++) {
    const { token, me } = await approvedLogin(baseUrl, readLogin(current)?.scope, say, where);
    const login = { ...loginOf(baseUrl, token), workspace: me.workspace.slug };
    if (me.workspace.id === workspace.id) {
      keepLogin(login);
      say(`Logged in to ${login.workspace}, kept beside your current login (\`pm workspace use ${login.workspace}\` switches to it).`);
      return openSession({ "base-url": baseUrl, workspace: login.workspace });
    }
    // A login to another workspace is of no use here, and was asked for nothing else.
    await revokeLogin(login).catch(() => undefined);
    say(`That login is to ${me.workspace.slug}, not to ${workspace.slug}.`);
  }
  throw new NotLoggedInError(`no login to the new workspace ${workspace.slug} was approved: it holds the import without its files`);
}

/** The parts of `doc` sent one after the other into a new import, then committed; a failure discards the import. */
async function importInParts(session: Session, doc: Schemas["Export"], target: { teamId?: string; update: boolean }, partBytes: number) {
  const { client } = session;
  const { import: opened } = await unwrap(client.POST("/imports", { body: target }));
  const id = opened.id;
  try {
    const parts = splitExport(doc, partBytes);
    for (const [i, part] of parts.entries()) {
      await unwrap(client.PUT("/imports/{id}/parts/{number}", { params: { path: { id, number: i + 1 } }, body: { data: part } }));
      process.stderr.write(`sent part ${i + 1} of ${parts.length}\n`);
    }
    return (await unwrap(client.POST("/imports/{id}/commit", { params: { path: { id } } }))) as Imported;
  } catch (error) {
    // What was sent is of no use once a part or the commit is refused: nothing was imported, and the parts go now.
    await client.DELETE("/imports/{id}", { params: { path: { id } } }).catch(() => {});
    throw error;
  }
}

export const importCommand = defineCommand({
  meta: { name: "pm import", description: "Import an export document into a team, or into a new workspace (in parts when it is large)" },
  args: {
    file: { type: "positional", description: "The export document (a file written by pm export), or - for standard input", required: true },
    team: { type: "string", valueHint: "team", description: "Into this team (prefix or id): a task, project or team export" },
    "new-workspace": { type: "boolean", description: "Into a new workspace that you own: a workspace export" },
    update: { type: "boolean", description: "Overwrite the team's records that have the export's ids (the rest are created)" },
    files: {
      type: "string",
      valueHint: "dir",
      description:
        "Then upload the attachments from this folder (written by pm export --files) onto the records the import made; into a new workspace, after you approve a login to it",
    },
    "part-size": {
      type: "string",
      valueHint: "MiB",
      description: `Send the document in parts of this size (default: over ${PART_BYTES / 2 ** 20} MiB, in parts of that)`,
    },
    ...commonArgs,
  },
  async run({ args }) {
    if (Boolean(args.team) === Boolean(args["new-workspace"])) throw new UsageError("give either --team <team> or --new-workspace");
    // A key reaches its own workspace only, and gives no way to a credential in the new one; a login does (the device flow).
    if (args.files && args["new-workspace"] && process.env.PM_API_KEY)
      throw new UsageError(
        "--new-workspace --files uploads into the new workspace, which PM_API_KEY (a key of one workspace) cannot reach: unset it and `pm login`; pm then asks you to approve a login to the new workspace",
      );
    const partBytes = args["part-size"] === undefined ? PART_BYTES : Number(args["part-size"]) * 2 ** 20;
    if (!(partBytes >= 1024)) throw new UsageError("--part-size is a number of MiB, at least 0.001");
    const source = args.file === "-" ? await text(process.stdin) : readFileSync(args.file, "utf8");
    let doc: Schemas["Export"];
    try {
      doc = JSON.parse(source);
    } catch {
      throw new UsageError(`${args.file === "-" ? "standard input" : args.file} is not JSON (an export document is)`);
    }
    if (args.files) requireFiles(doc, args.files);
    const session = openSession(args);
    // A prefix or an id: the API takes either.
    const teamId = args.team || undefined;
    const update = Boolean(args.update);
    const whole = source.length <= PART_BYTES && args["part-size"] === undefined;
    const { client } = session;
    const answer: Imported = whole
      ? teamId
        ? await unwrap(client.POST("/teams/{id}/import", { params: { path: { id: teamId } }, body: { data: doc, update } }))
        : await unwrap(client.POST("/workspaces/import", { body: { data: doc, update } }))
      : await importInParts(session, doc, { ...(teamId ? { teamId } : {}), update }, partBytes);
    if (args.files && doc.data.attachments?.length) {
      const there = "imported" in answer ? session : await newWorkspaceSession(session.baseUrl, args.workspace, answer.workspace);
      await uploadFiles(there, doc, args.files, answer.ids);
    }
    if (args.json) return printJson(answer);
    const many = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
    const counts = `${many(doc.data.tasks.length, "task")}, ${many(doc.data.comments.length, "comment")}`;
    if ("imported" in answer) console.log(`imported ${counts} into ${answer.imported.prefix} (${answer.imported.name})`);
    else console.log(`imported ${counts} into the new workspace ${answer.workspace.name} (${answer.workspace.id})`);
  },
});
