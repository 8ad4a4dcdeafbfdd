CREATE TABLE "cycles" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"team_id" text NOT NULL,
	"number" integer NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"starts_at" timestamp (3) with time zone NOT NULL,
	"ends_at" timestamp (3) with time zone NOT NULL,
	"frozen_progress" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cycles_ends_after_start" CHECK ("cycles"."ends_at" > "cycles"."starts_at")
);
--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "cycle_id" text;--> statement-breakpoint
ALTER TABLE "teams" ADD COLUMN "cycle_counter" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "cycles" ADD CONSTRAINT "cycles_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cycles" ADD CONSTRAINT "cycles_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cycles_team_number_key" ON "cycles" USING btree ("team_id","number");--> statement-breakpoint
CREATE INDEX "cycles_list_idx" ON "cycles" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "cycles_due_idx" ON "cycles" USING btree ("ends_at") WHERE frozen_progress is null;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_cycle_id_cycles_id_fk" FOREIGN KEY ("cycle_id") REFERENCES "public"."cycles"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "events_task_cycle_idx" ON "events" USING btree (("new_image"->>'cycle_id')) WHERE "events"."resource_type" = 'task' and "events"."new_image"->>'cycle_id' is not null;--> statement-breakpoint
CREATE INDEX "tasks_cycle_idx" ON "tasks" USING btree ("cycle_id");--> statement-breakpoint
-- hand-written
-- A team's cycles never overlap (docs/api.md, "Cycles"), also under concurrent creates and updates: an exclusion
-- constraint on the team and the half-open range [starts_at, ends_at) (btree_gist, a contrib extension, available on Neon).
CREATE EXTENSION IF NOT EXISTS btree_gist;--> statement-breakpoint
ALTER TABLE "cycles" ADD CONSTRAINT "cycles_no_overlap" EXCLUDE USING gist ("team_id" WITH =, tstzrange("starts_at", "ends_at") WITH &&);--> statement-breakpoint
-- A cycle created bumps its team's cycle counter: as the task and project counters, no change of the team (0011).
DROP TRIGGER teams_updated ON teams;--> statement-breakpoint
CREATE TRIGGER teams_updated AFTER UPDATE ON teams FOR EACH ROW
  WHEN ((to_jsonb(OLD) - ARRAY['task_counter', 'project_counter', 'cycle_counter', 'updated_at']) IS DISTINCT FROM (to_jsonb(NEW) - ARRAY['task_counter', 'project_counter', 'cycle_counter', 'updated_at']))
  EXECUTE FUNCTION pm_record_row_event('team');--> statement-breakpoint
-- Cycles are events (`cycle.created|updated|deleted`, docs/events.md).
CREATE TRIGGER cycles_inserted AFTER INSERT ON cycles REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events('cycle');--> statement-breakpoint
CREATE TRIGGER cycles_updated AFTER UPDATE ON cycles REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events('cycle');--> statement-breakpoint
CREATE TRIGGER cycles_deleted AFTER DELETE ON cycles REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events('cycle');
--> statement-breakpoint
-- A cycle is named after its team (ENG-C3) too: its writes hold the team's rename lock shared (pm_team_record_written).
CREATE TRIGGER cycles_team_written BEFORE UPDATE OR DELETE ON cycles FOR EACH ROW EXECUTE FUNCTION pm_team_record_written();
