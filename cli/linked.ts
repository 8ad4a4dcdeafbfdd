// How a task's links read for people: `parent ENG-1 Write the engine`, `project ENG-P1 Launch`, the milestone's
// name, its sub-tasks with their status. The task names its links by id only, so they are read in one request
// (POST /batch, one GET each), and only those the task has; a key without the scope `read` may not batch, but a
// `<records>:write` scope reads its records (docs/api.md, least privilege): then each is one GET of its own, at once.
import type { Schemas } from "../client/index";
import { cell } from "./output";
import { type Session, unwrap } from "./session";

type TaskSelection = Schemas["TaskSelection"];

export interface Linked {
  parent?: string;
  project?: string;
  milestone?: string;
  /** With `subtasks`: `ENG-2  TODO  Title` for each (the first 250). */
  subtasks?: TaskSelection[];
}

const named = (slot: unknown, key: string, ...parts: string[]): string | undefined => {
  const record = (slot as Record<string, Record<string, unknown>> | undefined)?.[key];
  return record ? parts.map((part) => cell(record[part])).join(" ") : undefined;
};

/** The names of the task's parent, project and milestone, and with `subtasks` its sub-tasks. */
export async function linkedNames(
  { client }: Session,
  task: Pick<TaskSelection, "id" | "parentId" | "projectId" | "milestoneId">,
  subtasks = false,
): Promise<Linked> {
  const asked: [keyof Linked, string][] = [];
  if (task.parentId) asked.push(["parent", `/tasks/${task.parentId}?fields=reference,title`]);
  if (task.projectId) asked.push(["project", `/projects/${task.projectId}?fields=reference,name`]);
  if (task.milestoneId) asked.push(["milestone", `/milestones/${task.milestoneId}?fields=name`]);
  if (subtasks && task.id) {
    asked.push(["subtasks", `/tasks?filter[eq][parentId]=${task.id}&fields=reference,status,title&sort[number]=asc&limit=250`]);
  }
  if (asked.length === 0) return {};
  const requests = asked.map(([, path]) => path);
  const batched = await client.POST("/batch", { body: { requests } });
  const results: unknown[] =
    batched.response.status === 403
      ? await Promise.all(requests.map(async (path) => (await fetchPath(client, path)) ?? {}))
      : (await unwrap(Promise.resolve(batched))).results;
  const linked: Linked = {};
  asked.forEach(([key], i) => {
    const slot = results[i];
    if (key === "parent") linked.parent = named(slot, "task", "reference", "title");
    else if (key === "project") linked.project = named(slot, "project", "reference", "name");
    else if (key === "milestone") linked.milestone = named(slot, "milestone", "name");
    else linked.subtasks = (slot as { tasks?: TaskSelection[] }).tasks ?? [];
  });
  return linked;
}

/** One GET of a relative path (what a batch item is), its body or, refused, undefined (the link is shown as unknown). */
async function fetchPath(client: Session["client"], path: string): Promise<unknown> {
  const { data, response } = await client.request("get" as never, path as never);
  return response.ok ? data : undefined;
}
