import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { jsonText } from "../../http/json-text";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { type ReadInput, reading } from "../../http/read-route";
import { releaseBodyText } from "../../http/release-body";
import { protectedRoute } from "../../http/route-base";
import { newRouter } from "../../http/router";
import { IdParam } from "../../http/schemas";
import { TeamMember } from "../../records/team-members";
import { Team } from "../../records/teams";
import { serializeWorkspace, WorkspaceSchema } from "../../records/workspaces";
import { exportRecords, importNewWorkspace, importTeam } from "./operations";
import { EXPORT_TYPES, ExportDocument, ImportBody } from "./schema";

/** The API's Team, whose `members` in an import's answer are team-member objects (`tmbr_…` ids) rather than list items. */
export const ImportedTeam = z.object({ ...Team.shape, members: z.array(TeamMember) }).openapi("ImportedTeam");

const byExportId = (what: string) =>
  z.record(z.string(), z.string()).openapi({ description: `Each ${what}'s id in the document → its id here`, example: {} });
/** Beside an import's answer: where the records that the document's files hang on went (plan.ts `Placed`). */
export const ImportedIds = z.object({ tasks: byExportId("filed task"), comments: byExportId("filed comment") }).openapi("ImportedIds", {
  description:
    "Where the import put each task and comment that a file of the document (`data.attachments`) hangs on, by its id in the document: " +
    "the import restores no bytes, and a client uploads each file onto the record named here (`pm import --files`)",
});
export const TeamImported = z.object({ imported: ImportedTeam, ids: ImportedIds }).openapi("TeamImported");
export const WorkspaceImported = z.object({ workspace: WorkspaceSchema, ids: ImportedIds }).openapi("WorkspaceImported");

/** A workspace import's answer (POST /workspaces/import, or the commit of one sent in parts): 201, the new workspace's Location. */
export function workspaceImported(c: Context, done: Awaited<ReturnType<typeof importNewWorkspace>>) {
  c.header("Location", `/workspaces/${done.workspace.id}`);
  return c.json({ workspace: serializeWorkspace(done.workspace), ids: done.ids }, 201);
}

const TAGS = { task: "Tasks", project: "Projects", team: "Teams", workspace: "Workspaces" } as const;
const WHAT = {
  task: "a task with its subtasks",
  project: "a project with its milestones and tasks",
  team: "a team with its members, projects, milestones and tasks",
  workspace: "the whole workspace (OWNER only; the credential's own workspace)",
} as const;

const exportRoute = (type: (typeof EXPORT_TYPES)[number]) =>
  createRoute({
    // Each export is a new document (its exportedAt), and a large one streams: no ETag.
    ...protectedRoute(TAGS[type], { etag: false, scope: "export" }),
    method: "get",
    operationId: `export${type[0].toUpperCase()}${type.slice(1)}`,
    path: `/${type}s/{id}/export`,
    summary: `Export ${WHAT[type]}`,
    description:
      "The export document: `type`, `version` 1, `exportedAt` and `data`, flat lists of records that link by id, with their comments, relations, links, " +
      "the labels and fields they use and the users they point at. `POST /teams/{id}/import` (task, project, team) or " +
      `\`POST /workspaces/import\` (workspace) takes it back whole.${type === "task" || type === "project" ? " `{id}` may be the reference." : ""}`,
    request: { params: IdParam },
    responses: {
      200: jsonResponse(ExportDocument, "The export document"),
      ...errorResponses(type === "workspace" ? ["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"] : ["UNAUTHORIZED", "NOT_FOUND"]),
    },
  });

export const IMPORT_RULES =
  "One transaction: a payload that fails validation (422, keyed by the JSON path of each bad value, e.g. `data.data.tasks.3.status`) or any later error writes nothing. " +
  "Users map to the workspace's member with the same id or email, else an assignee or lead is cleared and a comment's author becomes the caller; " +
  "labels map by name (by id with `update`), fields by key; missing ones are created (new fields need workspace ADMIN/OWNER). " +
  "Links to records outside the export (a subtask's parent) are dropped. Files (`data.attachments`) are checked, not restored: the answer's `ids` names the " +
  "record each one's task or comment became, for the client to upload it there. Bodies up to 32 MiB.";

/** An import route's policy: a whole export document for a body, its writes' events say `import`. */
export const IMPORTING = { body: "import", via: "import", scope: "import" } as const;

const teamImport = createRoute({
  ...protectedRoute("Teams", IMPORTING),
  method: "post",
  operationId: "importIntoTeam",
  path: "/teams/{id}/import",
  summary: "Import a task, project or team export into this team",
  description:
    "Needs team role MEMBER or higher (or workspace ADMIN/OWNER). `update:false`: every record gets a new id and the next references of this team; " +
    "`update:true`: records whose id already exists in this team are overwritten (they keep their reference), the rest created; a team's own export " +
    `imported back with \`update:true\` also restores its name and description (team ADMIN). New team members are added with their exported role. ${IMPORT_RULES}`,
  request: { params: IdParam, ...jsonBody(ImportBody) },
  responses: {
    200: jsonResponse(TeamImported, "The team after the import, its members as team-member objects; `ids`: where the filed records went"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});

const workspaceImport = createRoute({
  ...protectedRoute("Workspaces", IMPORTING),
  method: "post",
  operationId: "importWorkspace",
  path: "/workspaces/import",
  summary: "Import a workspace export into a new workspace",
  description:
    "Needs the OWNER role in the credential's workspace. Creates a new workspace (named as the exported one, with a free slug) whose only member and OWNER is " +
    "the caller, with every team, label, field, project, milestone, task and comment of the export under new ids; team memberships of other people are not " +
    `carried over (they are not members of the new workspace; invite them). \`update\` changes nothing here: the workspace is new. ${IMPORT_RULES}`,
  request: jsonBody(ImportBody),
  responses: {
    201: createdResponse(WorkspaceImported, "The new workspace; `ids`: where the filed records went"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN"], { validation: true }),
  },
});

const exports = newRouter();
for (const type of EXPORT_TYPES) {
  const route = exportRoute(type);
  // The route streams the document's text as it is built; a batch item gets it parsed.
  const read = async ({ caller, param }: ReadInput) => {
    const { body, done } = await exportRecords(caller, type, param.id);
    const [document] = await Promise.all([new Response(body).json() as Promise<object>, done]);
    return document;
  };
  exports.openapi(
    route,
    reading(route, read, async (c, { caller, param }) => {
      const { body, done } = await exportRecords(caller, type, param.id);
      c.executionCtx.waitUntil(done);
      return jsonText(body);
    }),
  );
}

export const transferRoutes = exports
  .openapi(teamImport, async (c) => {
    const { id } = c.req.valid("param");
    const { data, update } = c.req.valid("json");
    releaseBodyText(c.req);
    return c.json(await importTeam(c.get("caller"), id, data, update), 200);
  })
  .openapi(workspaceImport, async (c) => {
    const { data } = c.req.valid("json");
    releaseBodyText(c.req);
    return workspaceImported(c, await importNewWorkspace(c.get("caller"), data));
  });
