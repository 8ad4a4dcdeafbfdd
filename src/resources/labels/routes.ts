import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { createLabel, deleteLabel, getLabel, listLabels, updateLabel } from "./operations";
import { Label, LabelCreate, type LabelCreateInput, LabelSelection, LabelUpdate, type LabelUpdateInput, labelRecord } from "./record";

/** GET /labels/{id}'s answer, also what If-Match and the order of checks read. */
const readLabel = oneRecord("label", labelRecord.shape, getLabel);

/** Its writes: each answers its record as its read does, so a lost answer is rebuilt by the read once settled. */
const base = protectedRoute("Labels", { settled: "record" });
const one = z.object({ label: Label });
const oneSelected = z.object({ label: LabelSelection });

const list = createRoute({
  ...protectedRoute("Labels"),
  method: "get",
  operationId: "listLabels",
  path: "/labels",
  summary: "List the workspace's labels",
  description: listDescription(labelRecord.list, "Every member reads them."),
  request: { query: listQueryFor(labelRecord.list) },
  responses: {
    200: jsonResponse(paginated("labels", LabelSelection), "Labels"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});
const create = createRoute({
  ...base,
  method: "post",
  operationId: "createLabel",
  path: "/labels",
  summary: "Create a label (name unique in the workspace, case-insensitive)",
  description:
    "Any workspace member may create one. A name that another label of the workspace already has (in any case) is 409; `color` is `#RRGGBB`.",
  request: jsonBody(LabelCreate),
  responses: { 201: createdResponse(one, "Created"), ...errorResponses(["UNAUTHORIZED", "CONFLICT"], { validation: true }) },
});
const read = createRoute({
  ...protectedRoute("Labels"),
  method: "get",
  operationId: "getLabel",
  path: "/labels/{id}",
  summary: "Get a label",
  description: "`fields` narrows the answer. Another workspace's label is 404.",
  request: { params: IdParam, query: fieldsQueryFor(labelRecord.shape) },
  responses: {
    200: jsonResponse(oneSelected, "The label"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const update = createRoute({
  ...base,
  method: "patch",
  operationId: "updateLabel",
  path: "/labels/{id}",
  summary: "Rename or recolour a label",
  description:
    "Partial. Needs workspace ADMIN/OWNER or the label's creator (403 otherwise). A name that another label of the workspace already has is 409.",
  request: { params: IdParam, ...jsonBody(LabelUpdate) },
  responses: {
    200: jsonResponse(one, "Updated"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteLabel",
  path: "/labels/{id}",
  summary: "Delete a label (it is detached from tasks and projects)",
  description:
    "Needs workspace ADMIN/OWNER or the label's creator (403 otherwise). The tasks and projects that carried it stay; only the link goes.",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"]) },
});

export const labelRoutes = newRouter()
  .openapi(list, reading(list, listing(labelRecord.list, "labels", listLabels)))
  .openapi(create, async (c) => {
    const label = await createLabel(c.get("caller"), c.req.valid("json") as LabelCreateInput);
    return created(c, "label", `/labels/${label.id}`, label);
  })
  .openapi(read, reading(read, readLabel))
  .openapi(update, async (c) => {
    const label = await updateLabel(c.get("caller"), c.req.valid("param").id, c.req.valid("json") as LabelUpdateInput);
    return c.json({ label }, 200);
  })
  .openapi(remove, async (c) => {
    await deleteLabel(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  });
