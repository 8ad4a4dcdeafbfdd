import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { addLink, deleteLink, listLinks } from "./operations";
import { linkRecord, TaskLink, TaskLinkCreate, TaskLinkSelection } from "./record";

const base = protectedRoute("Tasks");
const TaskIdParam = IdParam.extend({
  id: IdParam.shape.id.openapi({ param: { name: "id", in: "path" }, description: "Task id or reference (`ENG-12`, any case)" }),
});
const LinkBody = z.object({ link: TaskLink });

const list = createRoute({
  ...base,
  method: "get",
  operationId: "listTaskLinks",
  path: "/tasks/{id}/links",
  summary: "List a task's links",
  description: listDescription(linkRecord.list, "Oldest first by default; an unknown or foreign task is 404."),
  request: { params: TaskIdParam, query: listQueryFor(linkRecord.list) },
  responses: {
    200: jsonResponse(paginated("links", TaskLinkSelection), "Links"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const create = createRoute({
  ...base,
  method: "post",
  operationId: "createTaskLink",
  path: "/tasks/{id}/links",
  summary: "Add a link (a URL, never fetched) to a task",
  description:
    "Needs the right to change the task (team MEMBER or above, or workspace ADMIN/OWNER). `http`/`https` only, at most 2,048 " +
    "characters; stored as the URL parser writes it (`HTTPS://Example.com` is `https://example.com/`). The same URL on the same " +
    "task answers 200 with the link it has (its title unchanged), so a retry never adds a second one.",
  request: { params: TaskIdParam, ...jsonBody(TaskLinkCreate) },
  responses: {
    200: jsonResponse(LinkBody, "The task has this URL already: its link"),
    201: createdResponse(LinkBody, "Added"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteLink",
  path: "/links/{id}",
  summary: "Remove a link from its task",
  description: "Needs the right to change its task.",
  request: { params: IdParam },
  responses: { 204: { description: "Removed" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"]) },
});

export const taskLinkRoutes = newRouter()
  .openapi(
    list,
    reading(
      list,
      listing(linkRecord.list, "links", (caller, params, param) => listLinks(caller, param.id, params)),
    ),
  )
  .openapi(create, async (c) => {
    const { id } = c.req.valid("param");
    const { link, created: added } = await addLink(c.get("caller"), id, c.req.valid("json"));
    return added ? created(c, "link", `/tasks/${id}/links`, link) : c.json({ link }, 200);
  })
  .openapi(remove, async (c) => {
    await deleteLink(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  });
