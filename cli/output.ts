// How answers are printed: the raw API JSON for scripts (`--json`), aligned tables and key-value blocks for people.

export function printJson(data: unknown): void {
  console.log(JSON.stringify(data, null, 2));
}

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

/** A header and one line per row, each column padded to its widest cell. */
export function printTable<T>(rows: T[], columns: Column<T>[]): void {
  const lines = [columns.map((c) => c.header), ...rows.map((row) => columns.map((c) => cell(c.value(row))))];
  const widths = columns.map((_, i) => Math.max(...lines.map((line) => line[i].length)));
  for (const line of lines)
    console.log(
      line
        .map((text, i) => text.padEnd(widths[i]))
        .join("  ")
        .trimEnd(),
    );
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
