import { z } from "@hono/zod-openapi";
import type { Context } from "hono";

/** Query of every list. Filters and sorts are open-ended keys (`filter[op][field]`, `sort[field]`), checked by the list machinery. */
export const ListQuery = z
  .looseObject({
    limit: z.string().optional().openapi({ description: "1..250, default 50", example: "50" }),
    cursor: z.string().optional().openapi({ description: "Opaque `nextCursor` of the previous page" }),
    fields: z.string().optional().openapi({ description: "Field selection, e.g. `id,title,team{prefix}`" }),
  })
  .openapi({
    description:
      "Also `filter[<op>][<field>]=<value>` (ops eq, neq, gt, gte, lt, lte, contains, startsWith, in) and `sort[<field>]=asc|desc`; unknown names are 400.",
  });

export const FieldsQuery = z.object({
  fields: z.string().optional().openapi({ description: "Field selection, e.g. `id,name,team{prefix}`" }),
});

export const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .openapi({ param: { name: "id", in: "path" }, description: "Identifier (or, for tasks and projects, reference)" }),
});

export const Pagination = z.object({ limit: z.number().int(), nextCursor: z.string().nullable() }).openapi("Pagination");

/**
 * An object as a route that takes `fields` answers it: every key without `fields`, only the selected ones with it,
 * so here each key is optional (the response types then admit projectFields' narrowed objects without a cast).
 */
export type Selectable<T extends z.ZodObject> = z.ZodObject<{ [K in keyof T["shape"]]: z.ZodOptional<T["shape"][K]> }>;
/** The partial of `schema`, a named component of the document; define it once beside the schema (`<X>Selection`). */
export function selectable<T extends z.ZodObject>(schema: T, name: string): Selectable<T> {
  return schema.partial().openapi(name) as Selectable<T>;
}

/** A list's body: `{<key>: [items narrowed by fields], pagination}`; `items` is the resource's Selection. */
export const paginated = <K extends string, T extends z.ZodObject>(key: K, items: T) =>
  z.object({ [key]: z.array(items), pagination: Pagination } as { [P in K]: z.ZodArray<T> } & { pagination: typeof Pagination });

/** `YYYY-MM-DD` that is a real calendar date (defined once, in core/dates). */
export { IsoDate } from "../core/dates";

export const HexColor = z.string().regex(/^#[0-9A-Fa-f]{6}$/, "Must be a colour #RRGGBB");

/** 201 with Location (contract §1) for a POST that creates a resource. */
export function created<K extends string, T>(c: Context, key: K, location: string, value: T) {
  c.header("Location", location);
  return c.json({ [key]: value } as { [P in K]: T }, 201);
}
