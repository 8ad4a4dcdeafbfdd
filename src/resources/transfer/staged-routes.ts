import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { reading } from "../../http/read-route";
import { releaseBodyText } from "../../http/release-body";
import { protectedRoute } from "../../http/route-base";
import { created, IdParam } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { formsOf, NameOf } from "../../records/names";
import type { Transfer } from "./document";
import { commitImport, deleteImport, getImport, openImport, putImportPart } from "./operations";
import { IMPORTING, workspaceImported } from "./routes";
import { IMPORT_HOURS, MAX_IMPORT_BYTES, MAX_PARTS } from "./staged";

const Timestamp = z.string().openapi({ format: "date-time", example: "2026-11-25T10:00:00.000Z" });
const ImportSchema = z
  .object({
    id: z.string().openapi({ example: "imp_01jz8x4q0be0sv3c5kq9v1y2ab" }),
    teamId: z.string().nullable().openapi({ description: "The team the records go into; null: a new workspace" }),
    update: z.boolean(),
    status: z.enum(["open", "committed"]),
    parts: z.array(
      z
        .object({
          number: z.number().int(),
          bytes: z.number().int().openapi({ description: "The part's records as stored (JSON)" }),
          records: z.record(z.string(), z.number().int()).openapi({ description: 'Records per collection, e.g. `{"tasks": 5000}`' }),
          createdAt: Timestamp,
        })
        .openapi("ImportPart"),
    ),
    createdAt: Timestamp,
    expiresAt: Timestamp.openapi({ description: `${IMPORT_HOURS} h after it was opened: then it and its parts are gone` }),
    committedAt: Timestamp.nullable(),
  })
  .openapi("Import");
const one = z.object({ import: ImportSchema });

const ImportOpen = z
  .object({
    teamId: NameOf("team")
      .nullable()
      .optional()
      .openapi({
        description: `Import into this team, ${formsOf("team")}, answered as its id (a task, project or team export); omitted or null: into a new workspace (a workspace export)`,
      }),
    update: z.boolean().default(false).openapi({ description: "As for POST /teams/{id}/import (a team import only)", example: false }),
  })
  .strict()
  .openapi("ImportOpen");
const PartParams = z.object({
  id: IdParam.shape.id,
  // Digits only: a number's other spellings (`1e3`, `0x10`, ` 7`) would name another part than the client meant.
  number: z
    .string()
    .regex(/^[0-9]+$/, `Must be a part number in digits, 1…${MAX_PARTS}`)
    .transform(Number)
    .pipe(z.number().int().min(1).max(MAX_PARTS))
    .openapi({
      param: { name: "number", in: "path" },
      type: "integer",
      minimum: 1,
      maximum: MAX_PARTS,
      description: `The part's number in digits, 1…${MAX_PARTS}: parts are imported in this order`,
    }),
});

const base = protectedRoute("Imports");
const open = createRoute({
  ...base,
  method: "post",
  operationId: "openImport",
  path: "/imports",
  summary: "Open an import sent in parts",
  description:
    "For an export larger than one request may carry (32 MiB): open an import, send the export in parts (`PUT /imports/{id}/parts/{n}`), then commit it. " +
    "Into a team it needs team role MEMBER or higher (or workspace ADMIN/OWNER); into a new workspace, the OWNER role. Only its creator sees it.",
  request: jsonBody(ImportOpen),
  responses: {
    201: createdResponse(one, "The open import"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});
const read = createRoute({
  ...base,
  method: "get",
  operationId: "getImport",
  path: "/imports/{id}",
  summary: "Get an import sent in parts: its parts and status",
  request: { params: IdParam },
  responses: { 200: jsonResponse(one, "The import"), ...errorResponses(["UNAUTHORIZED", "NOT_FOUND"]) },
});
const part = ({ schemas }: Transfer) =>
  createRoute({
    ...protectedRoute("Imports", IMPORTING),
    method: "put",
    operationId: "putImportPart",
    path: "/imports/{id}/parts/{number}",
    summary: "Send (or replace) a part of an import",
    description:
      "The body is `{data}`: an export document (as `GET …/export` answers it) holding some of the export's records, checked as a whole import's body is " +
      "(422 with the JSON path of every bad value). Every part is of the same export: the same `type` and `data.root`; each record is in one part (422 at a " +
      "second one, naming the part of the first), a workspace export's `data.workspace` too, and a part's records may point at those of any other part. " +
      `Sending a part again replaces it. Bodies up to 32 MiB; an import holds at most ${MAX_PARTS} parts and ${MAX_IMPORT_BYTES / 1024 ** 3} GiB.`,
    request: {
      params: PartParams,
      ...jsonBody(
        z
          .object({ data: schemas.ExportDocument.openapi({ description: "An export document holding some of the export's records" }) })
          .strict()
          .openapi("ImportPartRequest"),
      ),
    },
    responses: {
      200: jsonResponse(one, "The import with this part"),
      ...errorResponses(["UNAUTHORIZED", "NOT_FOUND", "CONFLICT", "PAYLOAD_TOO_LARGE"], { validation: true }),
    },
  });
const commit = ({ schemas }: Transfer) =>
  createRoute({
    ...protectedRoute("Imports", IMPORTING),
    method: "post",
    operationId: "commitImport",
    path: "/imports/{id}/commit",
    summary: "Import every part, in one transaction",
    description:
      "Imports the parts, in the order of their numbers, as the one document they make up: into the team as `POST /teams/{id}/import` would (200 " +
      "`{imported: Team, ids}`), or into a new workspace as `POST /workspaces/import` would (201 `{workspace, ids}`), by the same rules; the paths of a 422 start " +
      `with \`parts.<n>.\`. ${schemas.importRules} Committed, the import is closed (409 to anything but reading or deleting it).`,
    request: { params: IdParam },
    responses: {
      200: jsonResponse(
        schemas.TeamImported,
        "Imported into the team: the team, its members as team-member objects; `ids`: where the filed records went",
      ),
      201: createdResponse(schemas.WorkspaceImported, "Imported into a new workspace; `ids`: where the filed records went"),
      ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
    },
  });
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteImport",
  path: "/imports/{id}",
  summary: "Discard an import sent in parts",
  description: "Its parts go; what a committed import imported stays.",
  request: { params: IdParam },
  responses: { 204: { description: "Discarded" }, ...errorResponses(["UNAUTHORIZED", "NOT_FOUND"]) },
});

/** The routes of an import sent in parts, for an app whose modules declare `transfer`'s parts. */
export const importRoutes = (transfer: Transfer) =>
  newRouter()
    .openapi(open, async (c) => {
      const { teamId = null, update } = c.req.valid("json");
      const found = await openImport(c.get("caller"), { teamId, update });
      return created(c, "import", `/imports/${found.id}`, found);
    })
    .openapi(
      read,
      reading(read, async ({ caller, param }) => ({ import: await getImport(caller, param.id) })),
    )
    .openapi(part(transfer), async (c) => {
      const { id, number } = c.req.valid("param");
      const { data } = c.req.valid("json");
      releaseBodyText(c.req);
      const found = await putImportPart(c.get("caller"), transfer, id, number, data);
      return c.json({ import: found }, 200);
    })
    .openapi(commit(transfer), async (c) => {
      const done = await commitImport(c.get("caller"), transfer, c.req.valid("param").id);
      if ("workspace" in done) return workspaceImported(c, done);
      return c.json(done, 200);
    })
    .openapi(remove, async (c) => {
      await deleteImport(c.get("caller"), c.req.valid("param").id);
      return c.body(null, 204);
    });
