import { z } from "zod";

/** API timestamps: ISO 8601 UTC with milliseconds and `Z` (docs/api.md, conventions). */
export const iso = (d: Date) => d.toISOString();

/** The one date rule: `YYYY-MM-DD` naming a real calendar day (`2024-02-31` is refused). Request bodies, filters and custom fields use it. */
export const IsoDate = z.iso.date({ error: "Must be a date YYYY-MM-DD" });
export const isIsoDate = (value: unknown): value is string => IsoDate.safeParse(value).success;
