import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/core/errors";
import {
  formatFields,
  MAX_FIELDS_DEPTH,
  MAX_FIELDS_LENGTH,
  MAX_FIELDS_NAMES,
  parseFields,
  projectFields,
} from "../../src/store/list/field-selection";
import type { FieldSelection, FieldShape } from "../../src/store/list/types";

const name = fc.stringMatching(/^[a-z][A-Za-z0-9_]{0,5}$/);

const shapeArb: fc.Arbitrary<FieldShape> = fc.letrec<{ shape: FieldShape; node: true | FieldShape }>((tie) => ({
  shape: fc.dictionary(name, tie("node"), { minKeys: 1, maxKeys: 5 }),
  node: fc.oneof({ depthSize: "small", withCrossShrink: true }, fc.constant(true as const), tie("shape")),
})).shape;

function selectionOf(shape: FieldShape): fc.Arbitrary<FieldSelection> {
  const names = Object.keys(shape);
  return fc.subarray(names, { minLength: 1 }).chain((picked) =>
    fc
      .tuple(
        ...picked.map((key) => {
          const sub = shape[key];
          const value: fc.Arbitrary<true | FieldSelection> =
            sub === true ? fc.constant(true as const) : fc.oneof(fc.constant(true as const), selectionOf(sub));
          return value.map((v) => [key, v] as const);
        }),
      )
      .map((entries) => Object.fromEntries(entries) as FieldSelection),
  );
}

function valueFor(shape: FieldShape): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(
      ...Object.entries(shape).map(([key, sub]) => {
        const value: fc.Arbitrary<unknown> =
          sub === true
            ? fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }))
            : fc.oneof(valueFor(sub), fc.array(valueFor(sub), { maxLength: 3 }), fc.constant(null));
        return value.map((v) => [key, v] as const);
      }),
    )
    .map((entries) => Object.fromEntries(entries));
}

const depthOf = (selection: FieldSelection): number =>
  1 + Math.max(0, ...Object.values(selection).map((sub) => (sub === true ? 0 : depthOf(sub))));
const namesIn = (selection: FieldSelection): number =>
  Object.values(selection).reduce<number>((n, sub) => n + 1 + (sub === true ? 0 : namesIn(sub)), 0);
/** A shape and a selection within it and within the parser's bounds (depth, names). */
const withSelection = shapeArb
  .chain((shape) => fc.tuple(fc.constant(shape), selectionOf(shape)))
  .filter(([, selection]) => depthOf(selection) <= MAX_FIELDS_DEPTH && namesIn(selection) <= MAX_FIELDS_NAMES);

/** Checks a projection against the selection it was made with. */
function checkProjection(original: unknown, projected: unknown, selection: FieldSelection): void {
  if (Array.isArray(original)) {
    expect(Array.isArray(projected)).toBe(true);
    expect((projected as unknown[]).length).toBe(original.length);
    for (const [i, element] of original.entries()) checkProjection(element, (projected as unknown[])[i], selection);
    return;
  }
  if (original === null || typeof original !== "object") {
    expect(projected).toEqual(original);
    return;
  }
  const source = original as Record<string, unknown>;
  const out = projected as Record<string, unknown>;
  for (const key of Object.keys(out)) expect(Object.keys(selection)).toContain(key);
  for (const [key, sub] of Object.entries(selection)) {
    if (!(key in source)) continue;
    if (sub === true) expect(out[key]).toEqual(source[key]);
    else checkProjection(source[key], out[key], sub);
  }
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected an error");
}

function badRequestOf(fn: () => unknown): AppError {
  const error = caught(fn);
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe("BAD_REQUEST");
  return error as AppError;
}

function expectWithinShape(selection: FieldSelection, shape: FieldShape): void {
  for (const [key, sub] of Object.entries(selection)) {
    expect(Object.hasOwn(shape, key)).toBe(true);
    if (sub !== true) {
      expect(shape[key]).not.toBe(true);
      expectWithinShape(sub, shape[key] as FieldShape);
    }
  }
}

const taskShape: FieldShape = {
  id: true,
  title: true,
  team: { id: true, prefix: true, name: true },
  labels: { id: true, name: true, color: true },
  project: { id: true, lead: { id: true, name: true } },
};

describe("parseFields", () => {
  it("parses the serialization of any valid selection back to it", () => {
    fc.assert(
      fc.property(withSelection, ([shape, selection]) => {
        expect(parseFields(formatFields(selection), shape)).toEqual(selection);
      }),
    );
  });

  it("ignores whitespace around names and braces", () => {
    fc.assert(
      fc.property(withSelection, ([shape, selection]) => {
        const spaced = formatFields(selection).replace(/([,{}])/g, " $1 ");
        expect(parseFields(` ${spaced} `, shape)).toEqual(selection);
      }),
    );
  });

  it("answers a selection within the shape or BAD_REQUEST for arbitrary input", () => {
    const garbage = fc.string({ unit: fc.constantFrom("a", "b", "id", "team", "x", ",", "{", "}", " ", "é", "\n") });
    fc.assert(
      fc.property(fc.oneof(shapeArb, fc.constant(taskShape)), fc.oneof(garbage, fc.string({ unit: "binary" })), (shape, raw) => {
        let result: FieldSelection | null;
        try {
          result = parseFields(raw, shape);
        } catch (e) {
          expect(e).toBeInstanceOf(AppError);
          expect((e as AppError).code).toBe("BAD_REQUEST");
          expect((e as AppError).details?.allowed).toBeInstanceOf(Array);
          return;
        }
        if (result !== null) expectWithinShape(result, shape);
      }),
      { numRuns: 500 },
    );
  });

  it("treats a missing or empty parameter as no projection", () => {
    expect(parseFields(null, taskShape)).toBeNull();
    expect(parseFields(undefined, taskShape)).toBeNull();
    expect(parseFields("", taskShape)).toBeNull();
    expect(parseFields("  ", taskShape)).toBeNull();
  });

  it("parses nested selections", () => {
    expect(parseFields("id,title,team{prefix},labels{name},project{lead{name}}", taskShape)).toEqual({
      id: true,
      title: true,
      team: { prefix: true },
      labels: { name: true },
      project: { lead: { name: true } },
    });
  });

  it("selects a whole object by its bare name and merges repeats", () => {
    expect(parseFields("team", taskShape)).toEqual({ team: true });
    expect(parseFields("team{id},team{name},id,id", taskShape)).toEqual({ team: { id: true, name: true }, id: true });
    expect(parseFields("team{id},team", taskShape)).toEqual({ team: true });
  });

  it("rejects an unknown name with the allowed names", () => {
    const error = badRequestOf(() => parseFields("id,nope", taskShape));
    expect(error.message).toContain("nope");
    expect(error.details).toEqual({ field: "nope", allowed: ["id", "title", "team", "labels", "project"] });
  });

  it("rejects a nested unknown name with that level's allowed names", () => {
    const error = badRequestOf(() => parseFields("project{lead{email}}", taskShape));
    expect(error.message).toContain("project.lead.email");
    expect(error.details).toEqual({ field: "project.lead.email", allowed: ["id", "name"] });
  });

  it("rejects braces on a leaf", () => {
    const error = badRequestOf(() => parseFields("title{x}", taskShape));
    expect(error.message).toContain("title");
    expect(error.details?.allowed).toEqual(Object.keys(taskShape));
  });

  it("rejects malformed syntax", () => {
    for (const raw of [
      "team{id",
      "team{id}}",
      "id}",
      "{id}",
      "id,,title",
      "id,",
      ",id",
      "team{}",
      "team{id,}",
      "id title",
      "team{id}title",
    ]) {
      const error = badRequestOf(() => parseFields(raw, taskShape));
      expect(error.details?.allowed, raw).toBeInstanceOf(Array);
    }
  });

  it("does not resolve names through the prototype", () => {
    badRequestOf(() => parseFields("constructor", taskShape));
    badRequestOf(() => parseFields("__proto__", taskShape));
    badRequestOf(() => parseFields("team{toString}", taskShape));
  });
});

describe("projectFields", () => {
  it("keeps only selected keys with their original values", () => {
    const arb = shapeArb.chain((shape) =>
      fc.tuple(selectionOf(shape), fc.oneof(valueFor(shape), fc.array(valueFor(shape), { maxLength: 3 }))),
    );
    fc.assert(
      fc.property(arb, ([selection, value]) => {
        checkProjection(value, projectFields(value, selection), selection);
      }),
    );
  });

  it("projects arrays per element and leaves null alone", () => {
    const task = {
      id: "task_1",
      title: "T",
      team: { id: "team_1", prefix: "ENG", name: "Eng" },
      labels: [
        { id: "l1", name: "bug", color: "red" },
        { id: "l2", name: "ui", color: "blue" },
      ],
      project: null,
    };
    const selection = parseFields("title,team{prefix},labels{name},project{id}", taskShape);
    expect(projectFields(task, selection)).toEqual({
      title: "T",
      team: { prefix: "ENG" },
      labels: [{ name: "bug" }, { name: "ui" }],
      project: null,
    });
    expect(projectFields([task], { id: true })).toEqual([{ id: "task_1" }]);
  });

  it("returns the value unchanged without a selection", () => {
    const value = { a: 1, b: { c: 2 } };
    expect(projectFields(value, null)).toBe(value);
  });
});

describe("parseFields limits", () => {
  /** `{a: {a: … {a: true}}}`, `levels` deep. */
  const nested = (levels: number): FieldShape => (levels === 1 ? { a: true, b: true } : { a: nested(levels - 1), b: true });
  const deep = (levels: number) => `${"a{".repeat(levels - 1)}b${"}".repeat(levels - 1)}`;

  it(`accepts ${MAX_FIELDS_DEPTH} levels and refuses one more, whatever the shape allows`, () => {
    const shape = nested(10);
    expect(parseFields(deep(MAX_FIELDS_DEPTH), shape)).not.toBeNull();
    const error = badRequestOf(() => parseFields(deep(MAX_FIELDS_DEPTH + 1), shape));
    expect(error.message).toContain(`nested deeper than ${MAX_FIELDS_DEPTH} levels`);
  });

  it(`refuses more than ${MAX_FIELDS_NAMES} names, repeats included`, () => {
    const shape: FieldShape = { id: true };
    expect(parseFields(Array(MAX_FIELDS_NAMES).fill("id").join(","), shape)).toEqual({ id: true });
    const error = badRequestOf(() =>
      parseFields(
        Array(MAX_FIELDS_NAMES + 1)
          .fill("id")
          .join(","),
        shape,
      ),
    );
    expect(error.message).toContain(`more than ${MAX_FIELDS_NAMES} names`);
  });

  it(`refuses an expression longer than ${MAX_FIELDS_LENGTH} characters before parsing it`, () => {
    expect(parseFields(`id${" ".repeat(MAX_FIELDS_LENGTH - 2)}`, taskShape)).toEqual({ id: true });
    const error = badRequestOf(() => parseFields(`id${" ".repeat(MAX_FIELDS_LENGTH - 1)}`, taskShape));
    expect(error.message).toContain(`longer than ${MAX_FIELDS_LENGTH} characters`);
    expect(error.details).toEqual({ allowed: Object.keys(taskShape), maxLength: MAX_FIELDS_LENGTH });
  });

  // Bounded work, shown by where each stops rather than by a wall-clock budget a loaded machine can break.
  it("refuses a brace bomb at its bounds, before walking it", () => {
    // A shape 1,000 deep is walked to the depth limit, not to the thousandth level…
    expect(badRequestOf(() => parseFields("a{".repeat(1000), nested(1000))).message).toContain(`deeper than ${MAX_FIELDS_DEPTH} levels`);
    // …and 100,000 braces are refused for their length before any parsing.
    expect(badRequestOf(() => parseFields("{".repeat(100_000), taskShape)).message).toContain(
      `longer than ${MAX_FIELDS_LENGTH} characters`,
    );
  });
});
