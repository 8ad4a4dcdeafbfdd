import type { RecordType } from "../../records/custom-fields";
import type { FieldDto } from "../../records/fields";
import { milestoneRecord } from "../milestones/record";
import { projectRecord } from "../projects/record";
import { taskRecord } from "../tasks/record";

/** The intrinsic fields of each record type, in the order GET /fields lists them: each record's map names its own. */
const BUILT_INS = { task: taskRecord.builtIns(), project: projectRecord.builtIns(), milestone: milestoneRecord.builtIns() };

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
