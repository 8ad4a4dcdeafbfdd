import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { createApiKey, deleteApiKey, getApiKey, listApiKeys } from "./operations";
import { ApiKeyCreate, type ApiKeyCreateInput, ApiKeySchema, ApiKeySelection, apiKeyRecord } from "./record";

/** GET /api-keys/{id}'s answer, also what If-Match and the order of checks read. */
const readApiKey = oneRecord("apiKey", apiKeyRecord.shape, getApiKey);

const list = createRoute({
  ...protectedRoute("API keys"),
  method: "get",
  operationId: "listApiKeys",
  path: "/api-keys",
  summary: "List the caller's API keys and their agents' keys",
  description: listDescription(
    apiKeyRecord.list,
    "Keys of the current workspace held by the caller or by agents the caller owns. Only the 10-character `prefix` of a key is shown, never " +
      "the key or its hash.",
  ),
  request: { query: listQueryFor(apiKeyRecord.list) },
  responses: {
    200: jsonResponse(paginated("api_keys", ApiKeySelection), "API keys (narrowed by `fields`)"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});
const create = createRoute({
  ...protectedRoute("API keys"),
  method: "post",
  operationId: "createApiKey",
  path: "/api-keys",
  summary: "Create an API key for the caller in the current workspace",
  description:
    "`key` is the raw key, returned only in this response (only its hash is stored). `expiresAt` must lie in the future (422); from then on " +
    "the key is 401. The key stops working when it is deleted or its holder leaves the workspace. It may do what `scopes` and `teamIds` " +
    "say (omitted: what the calling credential may), never more than the calling credential: a scope it lacks is 403 naming it in " +
    "`details.requiredScope`, every team (`teamIds: null`) asked by a credential bound to teams is 403, a team outside its teams or the " +
    "workspace is 404.",
  request: jsonBody(ApiKeyCreate),
  responses: {
    201: createdResponse(z.object({ apiKey: ApiKeySchema, key: z.string() }), "Created"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});
const read = createRoute({
  ...protectedRoute("API keys"),
  method: "get",
  operationId: "getApiKey",
  path: "/api-keys/{id}",
  summary: "Get one of the caller's API keys (or an agent's)",
  description:
    "As an item of `GET /api-keys`: only the 10-character `prefix`, never the key or its hash. Any other key is 404. Its ETag is what " +
    "`DELETE /api-keys/{id}` takes in `If-Match`.",
  request: { params: IdParam, query: fieldsQueryFor(apiKeyRecord.shape) },
  responses: {
    200: jsonResponse(z.object({ apiKey: ApiKeySelection }), "The API key"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const remove = createRoute({
  ...protectedRoute("API keys"),
  method: "delete",
  operationId: "deleteApiKey",
  path: "/api-keys/{id}",
  summary: "Delete (revoke) an API key",
  description:
    "Your own keys or your agents' keys in the current workspace; any other key is 404. The key is 401 from the next request on.",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(["UNAUTHORIZED", "NOT_FOUND"]) },
});

export const apiKeyRoutes = newRouter()
  .openapi(list, reading(list, listing(apiKeyRecord.list, "api_keys", listApiKeys)))
  .openapi(create, async (c) => {
    const { apiKey, key } = await createApiKey(c.get("caller"), c.req.valid("json") as ApiKeyCreateInput);
    c.header("Location", `/api-keys/${apiKey.id}`);
    return c.json({ apiKey, key }, 201);
  })
  .openapi(read, reading(read, readApiKey))
  .openapi(remove, async (c) => {
    await deleteApiKey(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  });
