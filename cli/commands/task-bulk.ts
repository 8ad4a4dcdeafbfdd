// `pm tasks edit ENG-1 ENG-2 ENG-3 --add-label bug` and `pm tasks edit --filter eq:teamId=ENG --state done --dry-run`:
// several tasks changed at once, all or nothing (POST /tasks/bulk, docs/api.md "Bulk writes"), as gh edits several
// issues by number; each task's changes are printed.
import type { Schemas } from "../../client/index";
import { UsageError } from "../errors";
import { filterSortJson, type ListQuery } from "../list";
import { printJson } from "../output";
import type { Session } from "../session";
import { unwrap } from "../session";

type Fields = Schemas["TaskUpdate"];
type Filter = NonNullable<Schemas["TaskBulk"]["filter"]>;
/** What one request may set on many tasks (the rest of an edit's options are a task's own: its title, its description…). */
const SETTABLE = ["status", "priority", "assigneeId", "projectId", "milestoneId", "dueDate", "estimate"] as const;

/** `--filter` terms as the list takes them (`op:field=value`), or one JSON filter (`{"eq": {"teamId": "ENG"}}`). */
export function bulkFilter(terms: string[], query: () => ListQuery): Filter {
  if (terms.length === 1 && terms[0].trim().startsWith("{")) {
    try {
      return JSON.parse(terms[0]);
    } catch {
      throw new UsageError(`--filter is not JSON: ${terms[0]}`);
    }
  }
  return filterSortJson(query()).filter;
}

const shown = (value: unknown) =>
  value === null || value === undefined ? "none" : Array.isArray(value) ? value.join(",") || "none" : String(value);

export async function bulkEdit(
  session: Session,
  target: { ids: string[] } | { filter: Filter },
  fields: Fields,
  labels: { add: string[]; remove: string[] },
  options: { dryRun: boolean; json?: boolean },
): Promise<void> {
  const unsettable = Object.keys(fields).filter((name) => !(SETTABLE as readonly string[]).includes(name));
  if (unsettable.length)
    throw new UsageError(
      `several tasks at once take --state, --priority, --assignee, --project, --milestone, --due, --estimate and --add-label/--remove-label (not ${unsettable.join(", ")})`,
    );
  const body: Schemas["TaskBulk"] = {
    ...target,
    ...(Object.keys(fields).length ? { set: fields as Schemas["TaskBulkSet"] } : {}),
    ...(labels.add.length ? { addLabelIds: labels.add } : {}),
    ...(labels.remove.length ? { removeLabelIds: labels.remove } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
  };
  const answer = await unwrap(session.client.POST("/tasks/bulk", { body }));
  if (options.json) return printJson(answer);
  for (const task of answer.tasks) {
    const changes = Object.entries(task.changes).map(([field, change]) => `${field}: ${shown(change.from)} → ${shown(change.to)}`);
    console.log(`${task.reference}\t${changes.length ? changes.join("; ") : "unchanged"}`);
  }
  const verb = options.dryRun ? "would change" : "changed";
  console.log(`${answer.matched} matched, ${verb} ${answer.changed}${options.dryRun ? " (dry run: nothing written)" : ""}`);
}
