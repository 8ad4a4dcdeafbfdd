import { type AnyColumn, type SQL, sql } from "drizzle-orm";
import type { SortKey } from "./sort";
import { tiebreakDirection } from "./sort";
import { bindValue } from "./values";

interface KeysetTerm {
  expr: AnyColumn | SQL;
  bound: SQL | null;
  nullable: boolean;
  after: SQL;
}

/**
 * Rows strictly after the cursor row in the order of `orderByFor`: compared key by key, the first differing
 * key decides; the id (unique, never null) ends every comparison.
 */
export function keysetCondition(keys: SortKey[], values: unknown[], id: AnyColumn, cursorId: string): SQL {
  const idDir = tiebreakDirection(keys);
  const terms: KeysetTerm[] = keys.map((key, index) => ({
    expr: key.field.expr,
    bound:
      values[index] === null
        ? null
        : key.field.cursorBound
          ? key.field.cursorBound(values[index])
          : bindValue(key.field.kind, values[index]),
    nullable: key.field.nullable === true,
    after: sql.raw(key.dir === "asc" ? ">" : "<"),
  }));
  terms.push({ expr: id, bound: sql`${cursorId}`, nullable: false, after: sql.raw(idDir === "asc" ? ">" : "<") });

  // Common case (e.g. the default createdAt, id): one row comparison that a composite index can serve.
  if (terms.every((t) => !t.nullable && t.bound !== null) && keys.every((k) => k.dir === idDir)) {
    const left = sql.join(
      terms.map((t) => sql`${t.expr}`),
      sql`, `,
    );
    const right = sql.join(
      terms.map((t) => t.bound!),
      sql`, `,
    );
    return sql`(${left}) ${terms[0].after} (${right})`;
  }
  return expand(terms, 0);
}

function expand(terms: KeysetTerm[], index: number): SQL {
  const { expr, bound, nullable, after } = terms[index];
  if (index === terms.length - 1) return sql`${expr} ${after} ${bound}`;
  const rest = expand(terms, index + 1);
  // The cursor sits among the trailing nulls: only later nulls remain, ordered by the later keys.
  if (bound === null) return sql`(${expr} is null and ${rest})`;
  const beyond = sql`${expr} ${after} ${bound} or (${expr} = ${bound} and ${rest})`;
  // A non-null cursor value: every null row still lies ahead.
  return nullable ? sql`(${expr} is null or ${beyond})` : sql`(${beyond})`;
}
