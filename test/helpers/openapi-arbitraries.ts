// fast-check arbitraries for requests to the operations of the served OpenAPI document: values built from the
// documented schemas (so some requests get deep into the handlers) mixed with what a hostile client sends instead.
import fc from "fast-check";
import { resolveRef } from "./openapi-conformance";

type Json = Record<string, any>;

/** Strings an attacker tries: empty, huge, control characters, SQL and path metacharacters, emoji, RTL, combining marks. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "'; drop table tasks; --",
    "' or '1'='1",
    "%",
    "_",
    "\\",
    "../../etc/passwd",
    "👩‍👩‍👧‍👦🔥",
    "שלום עולם",
    "e\u0301\u0301\u0301",
    "\u202eevil",
    "null",
    "ENG-1",
    "ENG-P1",
    "task_00000000000000000000000000",
    "1e309",
    "-1",
    "9".repeat(40),
    "2026-02-30",
    "x".repeat(600),
  ),
  fc.constant("y".repeat(20_000)),
);

/** Any JSON value, nested up to `depth`. */
const junkValue = (depth = 3): fc.Arbitrary<unknown> =>
  fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", maxDepth: depth },
      hostileString,
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie("value"), { maxLength: 4 }),
      fc.dictionary(hostileString, tie("value"), { maxKeys: 4 }),
    ),
  })).value;

/** `{"a":{"a":…}}` deeper than any parser should walk. */
const deeplyNested = fc.integer({ min: 50, max: 3000 }).map((depth) => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
});

/** A body that is not even the documented type. */
export const junkBody: fc.Arbitrary<unknown> = fc.oneof(junkValue(4), deeplyNested, fc.array(fc.constant({}), { maxLength: 3 }));

/** Text that is not JSON, or barely. */
export const junkText = fc.oneof(
  fc.constantFrom("", "{", "[1,", '{"a":}', "nul", '{"title":"\ud800"}', "\u0000", "{}".repeat(1000)),
  fc.string({ maxLength: 50 }),
);

/**
 * Values of the schema at `schema` (resolving `$ref` against `doc`), with now and then a wrong type, a missing
 * required property, an extra one or a hostile string. `ids` supplies real identifiers for properties named `…Id`.
 */
export function fromSchema(doc: Json, schema: Json | undefined, ids: fc.Arbitrary<string>, depth = 0): fc.Arbitrary<unknown> {
  const s = resolveRef(doc, schema ?? {});
  if (depth > 5) return junkValue(1);
  const again = (inner: Json | undefined) => fromSchema(doc, inner, ids, depth + 1);
  if (s.enum) return fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...s.enum) }, { weight: 1, arbitrary: hostileString });
  if (s.const !== undefined) return fc.constant(s.const);
  const choices: Json[] | undefined = s.anyOf ?? s.oneOf;
  if (choices) return fc.oneof(...choices.map(again));
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((type: string) => again({ ...s, type })));
  switch (s.type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.oneof({ weight: 6, arbitrary: fc.boolean() }, { weight: 1, arbitrary: junkValue(0) });
    case "integer":
    case "number":
      return fc.oneof(
        { weight: 6, arbitrary: fc.integer({ min: s.minimum ?? -5, max: s.maximum ?? 1000 }) },
        { weight: 1, arbitrary: fc.oneof(fc.double(), fc.constantFrom(-1, 0, 2 ** 53, 1e308), hostileString) },
      );
    case "string":
      return stringOf(s, ids);
    case "array":
      return fc.oneof(
        { weight: 6, arbitrary: fc.array(again(s.items), { maxLength: Math.min(s.maxItems ?? 4, 4) }) },
        { weight: 1, arbitrary: fc.oneof(junkValue(1), fc.array(fc.constant("x"), { minLength: 101, maxLength: 300 })) },
      );
    case "object":
    case undefined:
      return objectOf(doc, s, ids, depth);
    default:
      return junkValue(1);
  }
}

function stringOf(s: Json, ids: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const valid =
    s.format === "date"
      ? fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))
      : s.format === "date-time"
        ? fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString())
        : s.format === "email"
          ? fc.emailAddress()
          : s.pattern === "^#[0-9A-Fa-f]{6}$" || /color/i.test(s.description ?? "")
            ? fc.constantFrom("#FF0000", "#00aa00", "red")
            : fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 30, 30) });
  return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: ids }, { weight: 1, arbitrary: hostileString });
}

function objectOf(doc: Json, s: Json, ids: fc.Arbitrary<string>, depth: number): fc.Arbitrary<unknown> {
  const properties = Object.entries((s.properties ?? {}) as Json);
  const required = new Set<string>(s.required ?? []);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, inner] of properties) {
    const value = fromSchema(doc, inner, ids, depth + 1);
    record[name] = /Id$/.test(name) ? fc.oneof({ weight: 3, arbitrary: ids }, { weight: 2, arbitrary: value }) : value;
  }
  const requiredKeys = properties.map(([name]) => name).filter((name) => required.has(name));
  const shaped = fc.record(record, { requiredKeys });
  return fc.oneof(
    { weight: 10, arbitrary: shaped },
    // Required properties left out, and keys the schema does not know.
    { weight: 1, arbitrary: fc.record(record, { requiredKeys: [] }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(shaped, hostileString, junkValue(1))
        .map(([value, key, extra]) => ({ ...(value as Json), [key || "extra"]: extra })),
    },
  );
}
