CREATE TYPE "public"."state_category" AS ENUM('backlog', 'unstarted', 'started', 'completed', 'canceled');--> statement-breakpoint
CREATE TABLE "workflow_states" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"team_id" text NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"name_key" text GENERATED ALWAYS AS (lower(name)) STORED NOT NULL,
	"category" "state_category" NOT NULL,
	"position" double precision NOT NULL,
	"color" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"creator_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workflow_states_key_form" CHECK ("workflow_states"."key" ~ '^[A-Z0-9_]{1,32}$')
);
--> statement-breakpoint
ALTER TABLE "workflow_states" ADD CONSTRAINT "workflow_states_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_states" ADD CONSTRAINT "workflow_states_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_states" ADD CONSTRAINT "workflow_states_creator_id_users_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_states_team_key_key" ON "workflow_states" USING btree ("team_id","key");--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_states_team_name_key" ON "workflow_states" USING btree ("team_id","name_key");--> statement-breakpoint
CREATE INDEX "workflow_states_name_idx" ON "workflow_states" USING btree ("name_key");--> statement-breakpoint
CREATE INDEX "workflow_states_team_position_idx" ON "workflow_states" USING btree ("team_id","position","id");--> statement-breakpoint
CREATE INDEX "workflow_states_workspace_idx" ON "workflow_states" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
-- hand-written (the generated statements on tasks, reordered around the backfill)
-- Every team, old and new, starts with the six defaults of contract §4 (no events: the states' triggers come last).
INSERT INTO workflow_states (id, workspace_id, team_id, key, name, category, position, color)
  SELECT pm_typeid('sta'), t.workspace_id, t.id, d.key, d.name, d.category::state_category, d.position, d.color
  FROM teams t CROSS JOIN (VALUES
    ('BACKLOG', 'Backlog', 'backlog', 0, '#BEC2C8'), ('TODO', 'Todo', 'unstarted', 1, '#E2E2E2'),
    ('IN_PROGRESS', 'In Progress', 'started', 2, '#F2C94C'), ('IN_REVIEW', 'In Review', 'started', 3, '#0F783C'),
    ('DONE', 'Done', 'completed', 4, '#5E6AD2'), ('CANCELED', 'Canceled', 'canceled', 5, '#95A2B3')
  ) AS d(key, name, category, position, color);--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "status" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "status" SET DATA TYPE text;--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "status" SET DEFAULT null;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "status_category" "state_category";--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "started_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "completed_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "canceled_at" timestamp (3) with time zone;--> statement-breakpoint
-- The existing tasks' categories, and their last change as when they entered it: a backfill, not a change of theirs (no
-- events: the user triggers are off for it; the foreign keys' stay on).
ALTER TABLE "tasks" DISABLE TRIGGER USER;--> statement-breakpoint
UPDATE tasks SET status_category = (CASE status WHEN 'BACKLOG' THEN 'backlog' WHEN 'TODO' THEN 'unstarted'
    WHEN 'IN_PROGRESS' THEN 'started' WHEN 'IN_REVIEW' THEN 'started' WHEN 'DONE' THEN 'completed' ELSE 'canceled' END)::state_category,
  started_at = CASE WHEN status IN ('IN_PROGRESS', 'IN_REVIEW') THEN updated_at END,
  completed_at = CASE WHEN status = 'DONE' THEN updated_at END,
  canceled_at = CASE WHEN status = 'CANCELED' THEN updated_at END;--> statement-breakpoint
ALTER TABLE "tasks" ENABLE TRIGGER USER;--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "status_category" SET DEFAULT null;--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "status_category" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_team_status_fk" FOREIGN KEY ("team_id","status") REFERENCES "public"."workflow_states"("team_id","key") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tasks_status_category_idx" ON "tasks" USING btree ("workspace_id","status_category","created_at","id");--> statement-breakpoint
CREATE INDEX "tasks_team_status_idx" ON "tasks" USING btree ("team_id","status");--> statement-breakpoint
DROP TYPE "public"."task_status";--> statement-breakpoint
-- A task's status is a key of its team (or a state's name, stored as its key); its category and when it entered it are
-- kept in the write's own statement, whichever path writes (migrations/functions/pm_task_state.sql). A new team gets
-- its states (pm_team_states.sql). These stubs let the triggers be created before the function files run.
CREATE FUNCTION pm_task_state() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;--> statement-breakpoint
CREATE FUNCTION pm_team_states() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;--> statement-breakpoint
CREATE TRIGGER tasks_state BEFORE INSERT OR UPDATE OF status, status_category ON tasks FOR EACH ROW EXECUTE FUNCTION pm_task_state();--> statement-breakpoint
CREATE TRIGGER teams_states AFTER INSERT ON teams FOR EACH ROW EXECUTE FUNCTION pm_team_states();--> statement-breakpoint
-- States are events (`state.created|updated|deleted`, docs/events.md).
CREATE TRIGGER workflow_states_inserted AFTER INSERT ON workflow_states REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events('state');--> statement-breakpoint
CREATE TRIGGER workflow_states_updated AFTER UPDATE ON workflow_states REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events('state');--> statement-breakpoint
CREATE TRIGGER workflow_states_deleted AFTER DELETE ON workflow_states REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events('state');