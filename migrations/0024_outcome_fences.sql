-- Requests given up on after a lost connection (src/db/outcome.ts): their fence, which pm_fence checks and pm_settle
-- sets (migrations/functions/pm_fence.sql, pm_settle.sql). Kept a day (pm_settle deletes older ones).
CREATE TABLE "write_fences" (
	"attempt" text PRIMARY KEY NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "write_fences_created_idx" ON "write_fences" USING btree ("created_at");
