import { createRoute, z } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { badRequest, ValidationError } from "../../core/errors";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { zodErrors } from "../../http/validation";
import { Field, FieldCreate, FieldSelection, FieldUpdate, fieldRecord, IMMUTABLE_KEYS } from "../../records/fields";
import { listBody, projectFields } from "../../store/list";
import { builtInFieldsFor } from "./builtins";
import { createField, deleteField, getField, listFields, updateField } from "./operations";

/** GET /fields/{id}'s answer, also what If-Match and the order of checks read. */
const readField = oneRecord("field", fieldRecord.shape, getField);

/** Its writes: each answers its record as its read does, so a lost answer is rebuilt by the read once settled. */
const base = protectedRoute("Fields", { settled: "record" });
const one = z.object({ field: Field });
const oneSelected = z.object({ field: FieldSelection });
const WRITERS = "Workspace ADMIN or OWNER only (403 otherwise).";

const list = createRoute({
  ...protectedRoute("Fields"),
  method: "get",
  operationId: "listFields",
  path: "/fields",
  summary: "List the built-in fields and the workspace's custom fields",
  description: listDescription(
    fieldRecord.list,
    "The first page (a request without `cursor`) starts with the built-in fields of tasks, projects and milestones (no `id`, " +
      "`isBuiltIn: true`, one entry per record type), then the custom field definitions, cursor-paged. Built-ins are not counted " +
      "in `limit` and never come again on later pages. `filter[…][recordType]` and `filter[…][isBuiltIn]` narrow both parts; any " +
      "other filter, and `sort`, apply to the custom definitions (built-ins are then left out when such a filter is given, and keep " +
      "their fixed order). `fields` narrows both. Every member reads.",
  ),
  request: { query: listQueryFor(fieldRecord.list) },
  responses: {
    200: jsonResponse(paginated("fields", FieldSelection), "Built-in fields (first page), then custom fields"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});
const create = createRoute({
  ...base,
  method: "post",
  operationId: "createField",
  path: "/fields",
  summary: "Define a custom field",
  description:
    `${WRITERS} \`key\` is unique in the workspace (409) and becomes the key of the value in the \`customFields\` of the ` +
    "`recordTypes` records. `metadata.options` is required for select and multiselect fields and refused for other types (422).",
  request: jsonBody(FieldCreate),
  responses: {
    201: createdResponse(one, "Created"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "CONFLICT"], { validation: true }),
  },
});
const read = createRoute({
  ...protectedRoute("Fields"),
  method: "get",
  operationId: "getField",
  path: "/fields/{id}",
  summary: "Get a custom field definition",
  description: "`fields` narrows the answer. Another workspace's field is 404.",
  request: { params: IdParam, query: fieldsQueryFor(fieldRecord.shape) },
  responses: {
    200: jsonResponse(oneSelected, "The field (narrowed by `fields`)"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"]),
  },
});
const update = createRoute({
  ...base,
  method: "patch",
  operationId: "updateField",
  path: "/fields/{id}",
  summary: "Change a custom field's name, description, presentation, options or record types",
  description:
    `${WRITERS} Partial. \`key\` and \`type\` cannot change (400). Removing a record type removes the field's values from ` +
    "records of that type; removing an option that a record still holds is 409 (change those values first). One transaction.",
  request: { params: IdParam, ...jsonBody(FieldUpdate) },
  responses: {
    200: jsonResponse(one, "Updated"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteField",
  path: "/fields/{id}",
  summary: "Delete a custom field and its values",
  description: `${WRITERS} Its values go from every task, project and milestone of the workspace, in the same transaction.`,
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"]) },
});

type ValidationResult = { success: boolean; target: string; error?: ZodError; data?: unknown };
/** Naming `key` or `type` in a PATCH is 400 (they are immutable) rather than the 422 of an unknown field. */
function immutableIsBadRequest(result: ValidationResult): undefined {
  const input = result.data;
  if (result.target === "json" && typeof input === "object" && input !== null) {
    const named = IMMUTABLE_KEYS.filter((key) => Object.hasOwn(input, key));
    if (named.length) throw badRequest(`${named.join(" and ")} cannot change after creation`, { fields: named });
  }
  if (!result.success && result.error) throw new ValidationError(zodErrors(result.error));
  return undefined;
}

export const fieldRoutes = newRouter()
  .openapi(
    list,
    reading(list, async ({ caller, url }) => {
      const params = await caller.listParams(fieldRecord.list, url.searchParams);
      const body = await listBody("fields", params, await listFields(caller, params));
      const builtIns = builtInFieldsFor(url.searchParams).map((f) => projectFields(f, params.fields));
      return { ...body, fields: [...builtIns, ...body.fields] };
    }),
  )
  .openapi(create, async (c) => {
    const field = await createField(c.get("caller"), c.req.valid("json"));
    return created(c, "field", `/fields/${field.id}`, field);
  })
  .openapi(read, reading(read, readField))
  .openapi(
    update,
    async (c) => c.json({ field: await updateField(c.get("caller"), c.req.valid("param").id, c.req.valid("json")) }, 200),
    immutableIsBadRequest,
  )
  .openapi(remove, async (c) => {
    await deleteField(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  });
