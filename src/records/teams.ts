// A team as other records embed it (`team: {id, name, prefix}`).
import { z } from "@hono/zod-openapi";
import { type SQL, sql } from "drizzle-orm";
import type { teams } from "../../drizzle/schema";

export const TeamSummary = z.object({ id: z.string(), name: z.string(), prefix: z.string() }).openapi("TeamSummary");

/** `{id, name, prefix}` of the joined team, built in SQL. */
export const teamSummaryJson = (t: typeof teams): SQL => sql`json_build_object('id', ${t.id}, 'name', ${t.name}, 'prefix', ${t.prefix})`;
