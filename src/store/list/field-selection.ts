import { badRequest } from "../../core/errors";
import type { FieldSelection, FieldShape } from "./types";

/** Bounds on a `fields` expression, whatever the shape allows (a hostile one costs no more than these). */
export const MAX_FIELDS_LENGTH = 2000;
export const MAX_FIELDS_DEPTH = 4;
export const MAX_FIELDS_NAMES = 100;

/**
 * Grammar: list := item ("," item)* ; item := name ("{" list "}")? ; whitespace around tokens is ignored.
 * Names repeated in one list are merged (a bare name selects the whole object).
 */
export function parseFields(raw: string | null | undefined, shape: FieldShape): FieldSelection | null {
  if (raw == null || raw.trim() === "") return null;
  if (raw.length > MAX_FIELDS_LENGTH) {
    throw badRequest(`Invalid fields parameter: longer than ${MAX_FIELDS_LENGTH} characters`, {
      allowed: Object.keys(shape),
      maxLength: MAX_FIELDS_LENGTH,
    });
  }
  const parser = new FieldsParser(raw);
  const selection = parser.list(shape, []);
  parser.skipSpace();
  if (!parser.atEnd()) throw parser.malformed(`unexpected '${raw[parser.pos]}'`, shape);
  return selection;
}

/** Inverse of parseFields (canonical form, no spaces). */
export function formatFields(selection: FieldSelection): string {
  return Object.entries(selection)
    .map(([name, sub]) => (sub === true ? name : `${name}{${formatFields(sub)}}`))
    .join(",");
}

const NAME_CHAR = /[^\s,{}]/;

class FieldsParser {
  pos = 0;
  private names = 0;
  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  skipSpace(): void {
    while (!this.atEnd() && /\s/.test(this.text[this.pos])) this.pos++;
  }

  malformed(problem: string, shape: FieldShape) {
    return badRequest(`Invalid fields parameter: ${problem} at position ${this.pos}`, { allowed: Object.keys(shape) });
  }

  list(shape: FieldShape, path: string[]): FieldSelection {
    if (path.length >= MAX_FIELDS_DEPTH) throw this.malformed(`nested deeper than ${MAX_FIELDS_DEPTH} levels`, shape);
    const selection: FieldSelection = {};
    for (;;) {
      this.skipSpace();
      const start = this.pos;
      while (!this.atEnd() && NAME_CHAR.test(this.text[this.pos])) this.pos++;
      const name = this.text.slice(start, this.pos);
      if (name === "") throw this.malformed("expected a field name", shape);
      if (++this.names > MAX_FIELDS_NAMES) throw this.malformed(`more than ${MAX_FIELDS_NAMES} names`, shape);
      const qualified = [...path, name].join(".");
      if (!Object.hasOwn(shape, name)) {
        throw badRequest(`Unknown field '${qualified}'`, { field: qualified, allowed: Object.keys(shape) });
      }
      this.skipSpace();
      let value: true | FieldSelection = true;
      if (this.text[this.pos] === "{") {
        const sub = shape[name];
        if (sub === true) {
          throw badRequest(`Field '${qualified}' has no sub-fields`, { field: qualified, allowed: Object.keys(shape) });
        }
        this.pos++;
        value = this.list(sub, [...path, name]);
        this.skipSpace();
        if (this.text[this.pos] !== "}") throw this.malformed("expected '}'", sub);
        this.pos++;
        this.skipSpace();
      }
      selection[name] = merge(selection[name], value);
      if (this.text[this.pos] !== ",") return selection;
      this.pos++;
    }
  }
}

function merge(a: true | FieldSelection | undefined, b: true | FieldSelection): true | FieldSelection {
  if (a === undefined) return b;
  if (a === true || b === true) return true;
  const out: FieldSelection = { ...a };
  for (const [key, value] of Object.entries(b)) out[key] = merge(out[key], value);
  return out;
}

/** Whether `fields` (null: everything) selects `key`: a sub-object is built in SQL only when it is shown. */
export const selects = (fields: FieldSelection | null, key: string) => fields === null || Object.hasOwn(fields, key);

/** Objects: pick selected keys; arrays: project each element; primitives and null pass through; null selection: unchanged. */
export function projectFields<T>(value: T, selection: FieldSelection | null): Partial<T> {
  if (selection === null) return value as Partial<T>;
  return project(value, selection) as Partial<T>;
}

function project(value: unknown, selection: FieldSelection): unknown {
  if (Array.isArray(value)) return value.map((element) => project(element, selection));
  if (value === null || typeof value !== "object") return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(selection)) {
    if (!Object.hasOwn(source, key)) continue;
    out[key] = sub === true ? source[key] : project(source[key], sub);
  }
  return out;
}
