// A script a user of the typed client would write: every list parameter, a nullable field, a conditional GET and a
// create's Location, all typed by client/api.d.ts (generated from the served document) without a single cast.
// test/unit/openapi-client.test.ts compiles it against freshly generated types; test/smoke/generated-clients.test.mjs
// runs `filteredTasks` against `npm start`.
import { createPmClient, type operations, type Schemas } from "../../client";
import { downloadFile, uploadFile } from "../../client/files";

type TaskQuery = NonNullable<operations["listTasks"]["parameters"]["query"]>;

export async function walkthrough(baseUrl: string, apiKey: string, teamId: string): Promise<string[]> {
  const api = createPmClient({ baseUrl, apiKey });
  const log: string[] = [];

  // A body with only the required fields: description, status and priority have defaults.
  const created = await api.POST("/tasks", { body: { title: "Write the engine", teamId, estimate: 3 } });
  if (!created.data) throw new Error(`create failed: ${created.response.status}`);
  const task: Schemas["Task"] = created.data.task;
  log.push(`created ${task.reference} at ${created.response.headers.get("Location") ?? "?"}`);

  // A nullable embedded user: null until someone is assigned.
  const points: number | null = task.estimate;
  log.push(points === null ? `${task.reference} is not estimated` : `${task.reference} is ${points} points`);
  if (task.assignee === null) log.push(`${task.reference} is unassigned`);
  else log.push(`${task.reference} is assigned to ${task.assignee.name}`);

  // Every list parameter, typed: limit a number, one parameter per filter operator and field (`in` an array, "null"
  // for no value), one per sort key in order of precedence; a custom field (named per workspace) rides beside them.
  const custom: Record<string, string | string[]> = { "filter[in][customFields.severity]": ["high", "critical"] };
  let cursor: string | undefined;
  do {
    const page = await api.GET("/tasks", {
      params: {
        query: {
          ...custom,
          limit: 25,
          cursor,
          fields: "id,reference,title,assignee{name}",
          "filter[eq][priority]": "HIGH",
          "filter[eq][parentId]": "null",
          "filter[in][status]": ["TODO", "IN_PROGRESS"],
          "filter[contains][title]": "engine",
          "filter[gte][createdAt]": "2026-01-01T00:00:00.000Z",
          "filter[lte][estimate]": 8,
          "sort[priority]": "desc",
          "sort[createdAt]": "asc",
        },
      },
    });
    if (!page.data) throw new Error(`list failed: ${page.response.status}`);
    for (const item of page.data.tasks) {
      const who = item.assignee === null ? "nobody" : (item.assignee?.name ?? "(not selected)");
      log.push(`${item.reference ?? item.id ?? "?"}: ${item.title ?? ""} (${who})`);
    }
    cursor = page.data.pagination.nextCursor ?? undefined;
  } while (cursor);

  // A conditional GET: the ETag of one answer makes the next one a 304 while the task is unchanged.
  const first = await api.GET("/tasks/{id}", { params: { path: { id: task.reference } } });
  const etag = first.response.headers.get("ETag");
  if (etag) {
    const again = await api.GET("/tasks/{id}", { params: { path: { id: task.reference }, header: { "If-None-Match": etag } } });
    log.push(again.response.status === 304 ? "unchanged (304)" : `changed: ${again.data?.task.title ?? ""}`);
  }
  return log;
}

/** The references of a few filtered and sorted task lists (the same lists as hey-api-client.ts's `filteredTasks`). */
export async function filteredTasks(
  baseUrl: string,
  apiKey: string,
  custom: Record<string, string | string[]>,
): Promise<Record<string, string[]>> {
  const api = createPmClient({ baseUrl, apiKey });
  const references = async (query: TaskQuery) => {
    const { data, response } = await api.GET("/tasks", { params: { query: { ...query, fields: "reference" } } });
    if (!data) throw new Error(`list failed: ${response.status}`);
    return data.tasks.map((task) => task.reference ?? "?");
  };
  return {
    high: await references({ "filter[eq][priority]": "HIGH" }),
    todoOrDoneByTitle: await references({ "filter[in][status]": ["TODO", "DONE"], "sort[title]": "desc" }),
    topLevelWithCustom: await references({ ...custom, "filter[eq][parentId]": "null", "sort[createdAt]": "desc" }),
  };
}

/** A file up to `task` through client/files.ts (openapi-fetch) and down again: the bytes that came back. */
export async function fileRoundTrip(baseUrl: string, apiKey: string, task: string, bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const api = createPmClient({ baseUrl, apiKey });
  const file = new Blob([bytes], { type: "application/octet-stream" });
  const uploaded = await uploadFile(api, { task }, file, { filename: "one-mib.bin" });
  if (!uploaded.data) throw new Error(`upload failed: ${uploaded.response.status} ${JSON.stringify(uploaded.error)}`);
  const downloaded = await downloadFile(api, uploaded.data.attachment.id);
  if (!downloaded.data) throw new Error(`download failed: ${downloaded.response.status}`);
  return new Uint8Array(await downloaded.data.arrayBuffer());
}
