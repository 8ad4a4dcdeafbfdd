// The value schemas field maps and request bodies share: bounded ids and texts, colours, dates, export timestamps,
// and the `fields`-narrowed form of an answer. Routes import them through http/route-schemas.ts as well.
import { z } from "@hono/zod-openapi";

/**
 * An object as a route that takes `fields` answers it: every key without `fields`, only the selected ones with it,
 * so here each key is optional (the response types then admit projectFields' narrowed objects without a cast).
 */
export type Selectable<T extends z.ZodObject> = z.ZodObject<{ [K in keyof T["shape"]]: z.ZodOptional<T["shape"][K]> }>;

type Shape = Record<string, z.core.$ZodType>;
const narrowShape = (shape: Shape) => z.object(Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, narrowable(v)]))).partial();

/** `team{prefix}` narrows embedded objects too: objects inside (also in arrays, or nullable) become partial as well. */
function narrowable(schema: z.core.$ZodType): z.core.$ZodType {
  if (schema instanceof z.ZodObject) return narrowShape(schema.shape);
  if (schema instanceof z.ZodArray) return z.array(narrowable(schema.element));
  if (schema instanceof z.ZodNullable) return z.nullable(narrowable(schema.unwrap()));
  if (schema instanceof z.ZodOptional) return z.optional(narrowable(schema.unwrap()));
  if (schema instanceof z.ZodUnion) return z.union(schema.options.map(narrowable));
  return schema;
}

/**
 * The `fields`-narrowed form of `schema`, a named component of the document; define it once beside the schema
 * (`<X>Selection`). Its type is the top-level partial the handlers produce; the document also admits narrowed
 * embedded objects.
 */
export function selectable<T extends z.ZodObject>(schema: T, name: string): Selectable<T> {
  return narrowShape(schema.shape).openapi(name) as unknown as Selectable<T>;
}

/**
 * `schema` or null. For a named schema `.nullable()` renders as `allOf: [$ref, {type: [object, null]}]`, which
 * rejects null; a union renders as `anyOf: [$ref, {type: null}]`.
 */
export const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

/**
 * Characters a name must not hold to read as it is: C0, DEL and C1 controls, and the bidirectional overrides and
 * isolates (U+202A–E, U+2066–9) that make `<U+202E>gnp.exe` read `exe.png`. One rule for file names and link titles.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused here.
export const NOT_PLAIN = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
export const PLAIN_MESSAGE = "no control or direction-override characters";

/** `YYYY-MM-DD` that is a real calendar date (defined once, in core/dates). */
export { IsoDate } from "../core/dates";

export const HexColor = z
  .string()
  .max(7, "Must be a colour #RRGGBB")
  .regex(/^#[0-9A-Fa-f]{6}$/, "Must be a colour #RRGGBB");

/** Length bounds of request strings that have no natural one (docs/security.md, hostile input). */
export const MAX_ID_LENGTH = 100;
export const MAX_TEXT_LENGTH = 100_000;
/** An id (or reference) a request body names: 1..100 characters. */
export const BodyId = z.string().min(1).max(MAX_ID_LENGTH, `Must be at most ${MAX_ID_LENGTH} characters`);
/** A key of a free-form object in a request body (custom fields, presentation); zod drops a `__proto__` key. */
export const ObjectKey = z.string().max(MAX_ID_LENGTH, `Must be at most ${MAX_ID_LENGTH} characters`);
/** Markdown a request body carries (descriptions): at most 100,000 characters. */
export const LongText = z.string().max(MAX_TEXT_LENGTH, `Must be at most ${MAX_TEXT_LENGTH.toLocaleString("en")} characters`);

/** A record's createdAt or updatedAt in an export: ISO 8601, and not imported (an import is a new write). */
export const ExportTimestamp = z.iso
  .datetime({ offset: true })
  .openapi({ description: "ISO 8601; not imported (an import is a new write)" });
