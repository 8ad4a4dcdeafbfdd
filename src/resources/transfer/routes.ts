import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { jsonText } from "../../http/json-text";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { type ReadInput, reading } from "../../http/read-route";
import { releaseBodyText } from "../../http/release-body";
import { protectedRoute } from "../../http/route-base";
import { IdParam } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { EXPORT_TYPES, type ExportType } from "../../store/transfer-part";
import { serializeWorkspace } from "../workspaces/record";
import type { Transfer } from "./document";
import { exportRecords, importNewWorkspace, importTeam } from "./operations";

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

const exportRoute = ({ parts, schemas }: Transfer, type: ExportType) =>
  createRoute({
    // Each export is a new document (its exportedAt), and a large one streams: no ETag.
    ...protectedRoute(TAGS[type], { etag: false, scope: "export" }),
    method: "get",
    operationId: `export${type[0].toUpperCase()}${type.slice(1)}`,
    path: `/${type}s/{id}/export`,
    summary: `Export ${WHAT[type]}`,
    description:
      "The export document: `type`, `version` 1, `exportedAt` and `data`, flat lists of records that link by id, with their comments, " +
      parts.all.flatMap((p) => (p.listed ? [`${p.collection}, `] : [])).join("") +
      "the labels and fields they use and the users they point at. `POST /teams/{id}/import` (task, project, team) or " +
      `\`POST /workspaces/import\` (workspace) takes it back whole.${type === "task" || type === "project" ? " `{id}` may be the reference." : ""}`,
    request: { params: IdParam },
    responses: {
      200: jsonResponse(schemas.ExportDocument, "The export document"),
      ...errorResponses(type === "workspace" ? ["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"] : ["UNAUTHORIZED", "NOT_FOUND"]),
    },
  });

/** An import route's policy: a whole export document for a body, its writes' events say `import`. */
export const IMPORTING = { body: "import", via: "import", scope: "import" } as const;

const teamImport = ({ schemas }: Transfer) =>
  createRoute({
    ...protectedRoute("Teams", IMPORTING),
    method: "post",
    operationId: "importIntoTeam",
    path: "/teams/{id}/import",
    summary: "Import a task, project or team export into this team",
    description:
      "Needs team role MEMBER or higher (or workspace ADMIN/OWNER). `update:false`: every record gets a new id and the next references of this team; " +
      "`update:true`: records whose id already exists in this team are overwritten (they keep their reference), the rest created; a team's own export " +
      `imported back with \`update:true\` also restores its name and description (team ADMIN). New team members are added with their exported role. ${schemas.importRules}`,
    request: { params: IdParam, ...jsonBody(schemas.ImportBody) },
    responses: {
      200: jsonResponse(
        schemas.TeamImported,
        "The team after the import, its members as team-member objects; `ids`: where the filed records went",
      ),
      ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
    },
  });

const workspaceImport = ({ schemas }: Transfer) =>
  createRoute({
    ...protectedRoute("Workspaces", IMPORTING),
    method: "post",
    operationId: "importWorkspace",
    path: "/workspaces/import",
    summary: "Import a workspace export into a new workspace",
    description:
      "Needs the OWNER role in the credential's workspace. Creates a new workspace (named as the exported one, with a free slug) whose only member and OWNER is " +
      "the caller, with every team, label, field, project, milestone, task and comment of the export under new ids; team memberships of other people are not " +
      `carried over (they are not members of the new workspace; invite them). \`update\` changes nothing here: the workspace is new. ${schemas.importRules}`,
    request: jsonBody(schemas.ImportBody),
    responses: {
      201: createdResponse(schemas.WorkspaceImported, "The new workspace; `ids`: where the filed records went"),
      ...errorResponses(["UNAUTHORIZED", "FORBIDDEN"], { validation: true }),
    },
  });

/** The export routes and the whole-document imports of an app (its parts: parts.ts). */
export function transferRoutes(transfer: Transfer) {
  const exports = newRouter();
  for (const type of EXPORT_TYPES) {
    const route = exportRoute(transfer, type);
    // The route streams the document's text as it is built; a batch item gets it parsed.
    const read = async ({ caller, param }: ReadInput) => {
      const { body, done } = await exportRecords(caller, transfer.parts, type, param.id);
      const [document] = await Promise.all([new Response(body).json() as Promise<object>, done]);
      return document;
    };
    exports.openapi(
      route,
      reading(route, read, async (c, { caller, param }) => {
        const { body, done } = await exportRecords(caller, transfer.parts, type, param.id);
        c.executionCtx.waitUntil(done);
        return jsonText(body);
      }),
    );
  }
  return exports
    .openapi(teamImport(transfer), async (c) => {
      const { id } = c.req.valid("param");
      const { data, update } = c.req.valid("json");
      releaseBodyText(c.req);
      return c.json(await importTeam(c.get("caller"), transfer.parts, id, data, update), 200);
    })
    .openapi(workspaceImport(transfer), async (c) => {
      const { data } = c.req.valid("json");
      releaseBodyText(c.req);
      return workspaceImported(c, await importNewWorkspace(c.get("caller"), transfer.parts, data));
    });
}
