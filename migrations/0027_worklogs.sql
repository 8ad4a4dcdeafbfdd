CREATE TABLE "worklogs" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"team_id" text NOT NULL,
	"task_id" text NOT NULL,
	"user_id" text,
	"started_at" timestamp (3) with time zone NOT NULL,
	"duration_seconds" integer NOT NULL,
	"note" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "worklogs_duration_positive" CHECK ("worklogs"."duration_seconds" > 0)
);
--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "estimate_seconds" integer;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "remaining_seconds" integer;--> statement-breakpoint
ALTER TABLE "worklogs" ADD CONSTRAINT "worklogs_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "worklogs" ADD CONSTRAINT "worklogs_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "worklogs" ADD CONSTRAINT "worklogs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "worklogs_task_idx" ON "worklogs" USING btree ("task_id","started_at","id");--> statement-breakpoint
CREATE INDEX "worklogs_list_idx" ON "worklogs" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "worklogs_started_idx" ON "worklogs" USING btree ("workspace_id","started_at","id");--> statement-breakpoint
CREATE INDEX "worklogs_user_idx" ON "worklogs" USING btree ("workspace_id","user_id","started_at");--> statement-breakpoint
-- hand-written
-- Worklogs are events (`worklog.created|updated|deleted`, docs/events.md); pm_emit files them under their task and its
-- ancestors (migrations/functions/pm_emit.sql).
CREATE TRIGGER worklogs_inserted AFTER INSERT ON worklogs REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events('worklog');--> statement-breakpoint
CREATE TRIGGER worklogs_updated AFTER UPDATE ON worklogs REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events('worklog');--> statement-breakpoint
CREATE TRIGGER worklogs_deleted AFTER DELETE ON worklogs REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events('worklog');
