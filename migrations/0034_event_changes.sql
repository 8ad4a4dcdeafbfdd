-- hand-written: cheaper events for writes of many rows (docs/performance.md, "Bulk writes").
-- What the event triggers hand to pm_emit is an array of this type, not a JSON array: a bulk write's thousand changes,
-- each with two images, were built into one JSON value and taken apart again (about 45 ms of its statement); an array of
-- rows only copies them. The function file creates pm_emit(text, text, pm_change[]) anew.
CREATE TYPE "public"."pm_change" AS (ws text, id text, before jsonb, after jsonb, labels text[], added text[], removed text[]);--> statement-breakpoint
DROP FUNCTION "public"."pm_emit"(text, text, jsonb);--> statement-breakpoint
-- An update's event holds two images of about 1 KB each: past the default 2 KB a row, PostgreSQL compressed an image of
-- each event as it was written, and decompressed it at each read. Rows up to 8 KB are now stored as they are.
ALTER TABLE "events" SET (toast_tuple_target = 8160);
