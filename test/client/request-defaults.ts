// Request bodies that leave out every field the API defaults (a task's description, an invite's teamIds, an import's
// update; a list's limit), as a user of a client generated with its generator's own defaults writes them: `npx openapi-typescript`
// with no options (which makes a property with a `default` required) under openapi-fetch, and @hey-api/openapi-ts.
// test/unit/openapi-client.test.ts compiles it against both, generated afresh into ./openapi-typescript and ./hey-api
// (not committed, hence left out of the root tsconfig).
import createClient from "openapi-fetch";
import { createInvite, createTask, importIntoTeam, importWorkspace, listTasks, openImport } from "./hey-api";
import type { components, paths } from "./openapi-typescript/api";

type Export = components["schemas"]["Export"];

export async function withOpenapiTypescript(baseUrl: string, teamId: string, document: Export) {
  const api = createClient<paths>({ baseUrl });
  await api.POST("/tasks", { body: { teamId, title: "No description" } });
  await api.POST("/invites", { body: { email: "ada@example.com" } });
  await api.POST("/teams/{id}/import", { params: { path: { id: teamId } }, body: { data: document } });
  await api.POST("/workspaces/import", { body: { data: document } });
  await api.POST("/imports", { body: { teamId } });
  // A list without `limit` (default 50).
  await api.GET("/tasks", { params: { query: { "filter[eq][priority]": "HIGH" } } });
}

export async function withHeyApi(teamId: string, document: Export) {
  await createTask({ body: { teamId, title: "No description" } });
  await createInvite({ body: { email: "ada@example.com" } });
  await importIntoTeam({ path: { id: teamId }, body: { data: document } });
  await importWorkspace({ body: { data: document } });
  await openImport({ body: { teamId } });
  await listTasks({ query: { "filter[eq][priority]": "HIGH" } });
}
