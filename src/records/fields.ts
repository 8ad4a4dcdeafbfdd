// The Field definition record: custom fields (their field map below) and the schemas of their bodies. Built-in fields come
// from the other records' maps (`builtIn`), listed by GET /fields before these.
import { z } from "@hono/zod-openapi";
import { type SQL, sql } from "drizzle-orm";
import { fieldDefinitions } from "../../drizzle/schema";
import { badRequest } from "../core/errors";
import { defineRecord, f } from "../store/field-map";
import type { FilterOp } from "../store/list";
import { BodyId, ExportTimestamp, ObjectKey } from "../store/schemas";
import { FIELD_TYPES, type FieldType, OPTION_TYPES, RECORD_TYPES, textArray } from "./custom-fields";
import { idKind, named } from "./names";

/** How a request names a field: by its id (`fdef_…`) only. */
export const FIELD_ID = idKind("a field id", "fdef");

/** Built-in fields naming other records (project, parent task, labels…) have this type; custom fields never do. */
const BUILT_IN_ONLY_TYPES = ["relation"] as const;

const unique = (values: string[]) => new Set(values).size === values.length;

const RecordTypeSchema = z.enum(RECORD_TYPES);
const RecordTypes = z
  .array(RecordTypeSchema)
  .min(1)
  .refine(unique, "Must not repeat a record type")
  .openapi({ description: "The records that carry the field: any of task, project, milestone", example: ["task"] });
const Options = z
  .array(z.string().trim().min(1).max(100))
  .min(1)
  .max(200)
  .refine(unique, "Options must be unique")
  .openapi({ description: "The values a select or multiselect field accepts", example: ["low", "high"] });

export const FieldMetadata = z
  .object({ options: Options.optional() })
  .strict()
  .openapi("FieldMetadata", { description: "`options`: required for select and multiselect fields, refused for other types" });
/** Bounds of the free-form `presentation`: PostgreSQL refuses jsonb nested past its stack depth (a 500 otherwise). */
const MAX_PRESENTATION_DEPTH = 16;
const MAX_PRESENTATION_LENGTH = 10_000;

/** Whether `value` nests at most `max` objects or arrays deep; iterative, so a hostile depth cannot overflow the stack. */
function nestsAtMost(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== "object" || node === null) continue;
    if (depth >= max) return false;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return true;
}

export const Presentation = z
  .record(ObjectKey, z.unknown())
  .refine(
    (value) => nestsAtMost(value, MAX_PRESENTATION_DEPTH) && JSON.stringify(value).length <= MAX_PRESENTATION_LENGTH,
    `Must nest at most ${MAX_PRESENTATION_DEPTH} levels and be at most ${MAX_PRESENTATION_LENGTH.toLocaleString("en")} characters as JSON`,
  )
  .nullable()
  .openapi({
    description: `Free-form display hints for clients (stored, never interpreted); at most ${MAX_PRESENTATION_DEPTH} levels deep and ${MAX_PRESENTATION_LENGTH.toLocaleString("en")} characters as JSON`,
  });

/** The filters below answer equality only: eq, neq and in. */
function equalityOnly(name: string, op: FilterOp) {
  if (op !== "eq" && op !== "neq" && op !== "in") {
    throw badRequest(`Operator '${op}' does not apply to '${name}'`, { field: name, operator: op, allowed: ["eq", "neq", "in"] });
  }
}

/** `recordType`: definitions that apply to the record type (`in`: to any of them; `neq`: not to it). */
function recordTypeFilter(op: FilterOp, values: string[]): SQL {
  equalityOnly("recordType", op);
  const applies = sql`${fieldDefinitions.recordTypes} && ${textArray(values)}`;
  return op === "neq" ? sql`not (${applies})` : applies;
}

/** `isBuiltIn`: the stored definitions are all custom, so the filter keeps all of them or none. */
function isBuiltInFilter(op: FilterOp, values: string[]): SQL {
  equalityOnly("isBuiltIn", op);
  const wantsCustom = op === "neq" ? values.includes("true") : values.includes("false");
  return wantsCustom ? sql`true` : sql`false`;
}

/** A field's key, name and description, as a create, a change and an import take them. */
const FieldKey = z
  .string()
  .max(63, "Must be at most 63 characters")
  .regex(/^[a-z][a-z0-9_]{0,62}$/, "Must be a lower-case letter, then up to 62 lower-case letters, digits or _");
const FieldName = z.string().trim().min(1).max(100);
const FieldDescription = z.string().max(2000).nullable();

const absentOnBuiltIns = { optional: true, doc: { description: "Absent on built-in fields" } } as const;

export const fieldRecord = defineRecord({
  name: "Field",
  resource: "fields",
  id: fieldDefinitions.id,
  workspace: fieldDefinitions.workspaceId,
  team: null,
  from: sql`${fieldDefinitions}`,
  fields: {
    id: f.id(fieldDefinitions.id, {
      names: named(FIELD_ID),
      ...absentOnBuiltIns,
      exported: BodyId,
      doc: { ...absentOnBuiltIns.doc, example: "fdef_01jz8x4q0be0sv3c5kq9v1y2ab" },
    }),
    key: f.text(fieldDefinitions.key, {
      exported: FieldKey,
      doc: { example: "severity", description: "The key of the value in a record's `customFields`; immutable" },
    }),
    name: f.text(fieldDefinitions.name, { exported: FieldName }),
    description: f.text(fieldDefinitions.description, { nullable: true, list: false, exported: FieldDescription }),
    type: f.enum(fieldDefinitions.type, z.enum([...FIELD_TYPES, ...BUILT_IN_ONLY_TYPES]), {
      list: { values: FIELD_TYPES },
      exported: z.enum(FIELD_TYPES),
      doc: { description: "Immutable; `relation` only on built-in fields" },
    }),
    presentation: f.json(fieldDefinitions.presentation, Presentation, { exported: true }),
    metadata: f.json(fieldDefinitions.metadata, z.record(z.string(), z.unknown()), { exported: FieldMetadata }),
    recordTypes: f.json(fieldDefinitions.recordTypes, z.array(RecordTypeSchema), { exported: z.array(RecordTypeSchema).min(1) }),
    // Not in the answer: `filter[eq][recordType]=task` keeps the definitions (and built-ins) that apply to tasks.
    recordType: f.enum(fieldDefinitions.recordTypes, RecordTypeSchema, {
      hidden: true,
      list: { sort: false, customFilter: recordTypeFilter },
    }),
    isBuiltIn: f.boolean(sql`false`, { list: { sort: false, customFilter: isBuiltInFilter } }),
    createdAt: f.datetime(fieldDefinitions.createdAt, { ...absentOnBuiltIns, exported: ExportTimestamp }),
    updatedAt: f.datetime(fieldDefinitions.updatedAt, { ...absentOnBuiltIns, exported: ExportTimestamp }),
  },
});

export const Field = fieldRecord.schema;
export type FieldDto = z.infer<typeof Field>;
/** As routes that take `fields` answer them (every key optional). */
export const FieldSelection = fieldRecord.selection;

const editable = {
  name: FieldName,
  description: FieldDescription,
  recordTypes: RecordTypes,
  metadata: FieldMetadata,
  presentation: Presentation,
};

export const FieldCreate = z
  .object({
    key: FieldKey.openapi({ description: "Unique in the workspace (409); immutable", example: "severity" }),
    type: z.enum(FIELD_TYPES).openapi({ description: "Immutable" }),
    ...editable,
    description: editable.description.optional(),
    metadata: editable.metadata.optional(),
    presentation: editable.presentation.optional(),
  })
  .strict()
  .superRefine((input, ctx) => {
    const message = optionsProblem(input.type, input.metadata);
    if (message) ctx.addIssue({ code: "custom", path: ["metadata", "options"], message });
  })
  .openapi("FieldCreate");

/** `key` and `type` cannot change: naming either is 400 (see the route), not an unknown field. */
export const FieldUpdate = z.object(editable).partial().strict().openapi("FieldUpdate");
export const IMMUTABLE_KEYS = ["key", "type"] as const;

export type FieldCreateInput = z.infer<typeof FieldCreate>;
export type FieldUpdateInput = z.infer<typeof FieldUpdate>;
export type FieldMetadataInput = z.infer<typeof FieldMetadata>;

/** Options are required exactly for select and multiselect fields: the message when `metadata` breaks that, else null. */
export function optionsProblem(type: FieldType, metadata: FieldMetadataInput | undefined): string | null {
  const takesOptions = OPTION_TYPES.includes(type);
  if (takesOptions && !metadata?.options) return `A ${type} field needs metadata.options`;
  if (!takesOptions && metadata?.options) return `Only select and multiselect fields have options, not ${type}`;
  return null;
}

/** An exported field definition as an import reads it (a definition it creates is written as exported, new id). */
export type ExportedField = {
  id: string;
  key: string;
  name: string;
  description: string | null;
  type: FieldType;
  presentation: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  recordTypes: Array<(typeof RECORD_TYPES)[number]>;
  createdAt: string;
  updatedAt: string;
};
