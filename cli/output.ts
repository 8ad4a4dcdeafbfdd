// How answers are printed: JSON for scripts (`--json`, narrowed by `--json field,field`, filtered by `--jq`), aligned
// tables and key-value blocks for people, coloured only on a terminal without NO_COLOR, cut to the terminal's width.
import { UsageError } from "./errors";

/** What `--json field,field` and `--jq` asked for (read once from the command line by the runner, cli/main.ts). */
const jsonOutput: { fields?: string[]; jq?: string } = {};

export function setJsonOutput(fields: string[] | undefined, jq: string | undefined): void {
  jsonOutput.fields = fields;
  jsonOutput.jq = jq;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The records of an answer: `{tasks: […], pagination}` its list, `{task: {…}}` its record, any other answer itself
 * (`GET /me`). `--json field,field` prints these, each with only the fields named, as `gh --json` does.
 */
function recordsOf(data: unknown): unknown {
  if (!isRecord(data)) return data;
  const keys = Object.keys(data).filter((key) => key !== "pagination");
  return keys.length === 1 ? data[keys[0]] : data;
}

function pick(record: unknown, fields: string[]): Record<string, unknown> {
  if (!isRecord(record)) return {};
  const unknown = fields.filter((field) => !Object.hasOwn(record, field));
  if (unknown.length > 0) {
    throw new UsageError(`unknown JSON field '${unknown[0]}'; available: ${Object.keys(record).sort().join(", ")}`);
  }
  return Object.fromEntries(fields.map((field) => [field, record[field]]));
}

/**
 * Prints JSON: the answer as the API gave it, its records narrowed to `--json`'s fields, then through `--jq`;
 * `compact`: on one line (a stream's events, one per line).
 */
export async function printJson(data: unknown, { compact = false } = {}): Promise<void> {
  const { fields, jq } = jsonOutput;
  let shown = data;
  if (fields) {
    const records = recordsOf(data);
    shown = Array.isArray(records) ? records.map((record) => pick(record, fields)) : pick(records, fields);
  }
  if (!jq) return void console.log(compact ? JSON.stringify(shown) : JSON.stringify(shown, null, 2));
  // jq compiled to WebAssembly (jq-wasm: offline), loaded only when asked for; strings print raw, as `gh --jq` does.
  const { raw } = await import("jq-wasm");
  let out: string;
  try {
    out = await raw(shown as object, jq, compact ? ["-r", "-c"] : ["-r"]);
  } catch (error) {
    throw new UsageError(`--jq: ${error instanceof Error ? error.message.trim() : String(error)}`);
  }
  if (out !== "") console.log(out.replace(/\n$/, ""));
}

/** Whether escape codes may be written: a terminal reads stdout and NO_COLOR (any value, no-color.org) is unset. */
export const colour = () => Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;

const bold = (text: string) => (colour() ? `\x1b[1m${text}\x1b[22m` : text);

/** Cuts a line to `width` characters, an ellipsis at the cut. */
const cut = (text: string, width: number) => (text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text);

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

/**
 * A header and one line per row, each column padded to its widest cell; on a terminal each line is cut to its width
 * (piped output keeps whole lines, for scripts).
 */
export function printTable<T>(rows: T[], columns: Column<T>[]): void {
  const lines = [columns.map((c) => c.header), ...rows.map((row) => columns.map((c) => cell(c.value(row))))];
  const widths = columns.map((_, i) => Math.max(...lines.map((line) => line[i].length)));
  const width = process.stdout.isTTY ? process.stdout.columns : undefined;
  lines.forEach((line, n) => {
    const text = line
      .map((t, i) => t.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
    const shown = width ? cut(text, width) : text;
    console.log(n === 0 ? bold(shown) : shown);
  });
}

/** Columns named by a `--fields` selection (its top-level names; `team{prefix}` is the column TEAM). */
export function fieldColumns(fields: string): Column<Record<string, unknown>>[] {
  let top = fields;
  // Drop nested selections, innermost first, until only the top-level names are left.
  for (let inner = top.replace(/\{[^{}]*\}/g, ""); inner !== top; inner = top.replace(/\{[^{}]*\}/g, "")) top = inner;
  return top
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean)
    .map((name) => ({ header: name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase(), value: (row) => row[name] }));
}

/** `label  value` lines, labels padded to the widest; rows whose value is undefined (not selected) are left out. */
export function printRecord(rows: [label: string, value: unknown][]): void {
  const shown = rows.filter(([, value]) => value !== undefined);
  const width = Math.max(...shown.map(([label]) => label.length));
  for (const [label, value] of shown) console.log(`${`${label}:`.padEnd(width + 1)}  ${cell(value)}`);
}

/** A value as one line of text: objects by their reference, name or prefix, lists joined by commas, nothing as "-". */
export function cell(value: unknown): string {
  if (value === null || value === undefined || value === "") return "-";
  if (Array.isArray(value)) return value.length ? value.map(cell).join(",") : "-";
  if (typeof value === "object") {
    const named = value as Record<string, unknown>;
    return cell(named.reference ?? named.name ?? named.prefix ?? named.id ?? JSON.stringify(value));
  }
  return String(value).replace(/\s+/g, " ");
}

/** Tells a person that there is a next page (on stderr, so that stdout stays the table). */
export function printNextCursor(nextCursor: string | null): void {
  if (nextCursor) console.error(`more: --cursor ${nextCursor}`);
}
