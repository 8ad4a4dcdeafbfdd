ALTER TABLE "tasks" ADD COLUMN "claim_holder_id" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "claim_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_claim_holder_id_users_id_fk" FOREIGN KEY ("claim_holder_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tasks_claim_holder_idx" ON "tasks" USING btree ("claim_holder_id") WHERE claim_holder_id is not null;--> statement-breakpoint
-- hand-written
-- A task's claim taken or renewed, and released, are their own events (`task.claimed`, `task.released`: docs/events.md),
-- not `task.updated` (pm_record_events leaves the claim's columns out of what it compares). A lease that runs out writes
-- nothing: an expired claim holds nothing where it is read.
CREATE TRIGGER tasks_claimed AFTER UPDATE OF claim_holder_id, claim_expires_at ON tasks FOR EACH ROW
  WHEN (NEW.claim_holder_id IS NOT NULL
    AND (OLD.claim_holder_id IS DISTINCT FROM NEW.claim_holder_id OR OLD.claim_expires_at IS DISTINCT FROM NEW.claim_expires_at))
  EXECUTE FUNCTION pm_record_row_event('task', 'claimed');--> statement-breakpoint
CREATE TRIGGER tasks_released AFTER UPDATE OF claim_holder_id ON tasks FOR EACH ROW
  WHEN (OLD.claim_holder_id IS NOT NULL AND NEW.claim_holder_id IS NULL)
  EXECUTE FUNCTION pm_record_row_event('task', 'released');
