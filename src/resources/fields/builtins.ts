import { taskPriority, taskStatus } from "../../../drizzle/schema";
import type { RecordType } from "../../records/custom-fields";
import { MILESTONE_STATUSES } from "../../records/milestones";
import { PROJECT_STATUSES } from "../../records/projects";
import type { FieldDto } from "./schema";

type BuiltIn = Pick<FieldDto, "key" | "name" | "type" | "metadata">;

const text = (key: string, name: string): BuiltIn => ({ key, name, type: "text", metadata: {} });
const date = (key: string, name: string): BuiltIn => ({ key, name, type: "date", metadata: {} });
const user = (key: string, name: string): BuiltIn => ({ key, name, type: "user", metadata: {} });
const select = (key: string, name: string, options: readonly string[]): BuiltIn => ({
  key,
  name,
  type: "select",
  metadata: { options: [...options] },
});
const relation = (key: string, name: string, target: string, multiple = false): BuiltIn => ({
  key,
  name,
  type: "relation",
  metadata: multiple ? { target, multiple } : { target },
});

/** The intrinsic fields of each record type, in the order GET /fields lists them. */
const BUILT_INS: Record<RecordType, BuiltIn[]> = {
  task: [
    text("title", "Title"),
    text("description", "Description"),
    select("status", "Status", taskStatus.enumValues),
    select("priority", "Priority", taskPriority.enumValues),
    date("dueDate", "Due date"),
    user("assigneeId", "Assignee"),
    relation("labels", "Labels", "label", true),
    relation("parentId", "Parent task", "task"),
    relation("projectId", "Project", "project"),
    relation("milestoneId", "Milestone", "milestone"),
  ],
  project: [
    text("name", "Name"),
    text("description", "Description"),
    select("status", "Status", PROJECT_STATUSES),
    user("leadId", "Lead"),
    date("startDate", "Start date"),
    date("targetDate", "Target date"),
  ],
  milestone: [
    text("name", "Name"),
    text("description", "Description"),
    date("targetDate", "Target date"),
    select("status", "Status", MILESTONE_STATUSES),
  ],
};

const ALL: FieldDto[] = (Object.keys(BUILT_INS) as RecordType[]).flatMap((recordType) =>
  BUILT_INS[recordType].map((f) => ({ ...f, description: null, presentation: null, recordTypes: [recordType], isBuiltIn: true })),
);

const FILTER = /^filter\[([^[\]]*)\]\[([^[\]]*)\]$/;
/** A built-in's value of a filter name of GET /fields, as the query writes it. */
const attribute = (f: FieldDto, name: string) => (name === "recordType" ? f.recordTypes[0] : String(f.isBuiltIn));

/**
 * The built-in fields that lead a GET /fields page: on the first page only (no cursor), narrowed by the
 * `recordType` and `isBuiltIn` filters. Any other filter names something built-ins do not have (an id, a
 * creation time…) and selects among custom definitions, so then there are none. The list machinery has already
 * checked every filter, so the values here are valid.
 */
export function builtInFieldsFor(query: URLSearchParams): FieldDto[] {
  if (query.has("cursor")) return [];
  let fields = ALL;
  const inValues = new Map<string, string[]>();
  for (const [param, value] of query) {
    const [, op, name] = FILTER.exec(param) ?? [];
    if (!op) continue;
    if (name !== "recordType" && name !== "isBuiltIn") return [];
    if (op === "in") inValues.set(name, [...(inValues.get(name) ?? []), value]);
    else fields = fields.filter((f) => (attribute(f, name) === value) === (op === "eq"));
  }
  for (const [name, values] of inValues) fields = fields.filter((f) => values.includes(attribute(f, name)));
  return fields;
}
