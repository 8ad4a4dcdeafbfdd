CREATE TYPE "public"."agent_activity_type" AS ENUM('prompt', 'thought', 'action', 'elicitation', 'response', 'error');--> statement-breakpoint
CREATE TYPE "public"."agent_session_state" AS ENUM('pending', 'active', 'awaiting_input', 'complete', 'error', 'stopped');--> statement-breakpoint
CREATE TABLE "agent_activities" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"team_id" text NOT NULL,
	"session_id" text NOT NULL,
	"task_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"type" "agent_activity_type" NOT NULL,
	"body" text NOT NULL,
	"action" jsonb,
	"created_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"team_id" text NOT NULL,
	"task_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"state" "agent_session_state" DEFAULT 'pending' NOT NULL,
	"external_url" text,
	"created_by" text,
	"last_activity_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "delegate_id" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "agent_ids" text[];--> statement-breakpoint
ALTER TABLE "agent_activities" ADD CONSTRAINT "agent_activities_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_activities" ADD CONSTRAINT "agent_activities_session_id_agent_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."agent_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_activities" ADD CONSTRAINT "agent_activities_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_sessions" ADD CONSTRAINT "agent_sessions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_sessions" ADD CONSTRAINT "agent_sessions_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_sessions" ADD CONSTRAINT "agent_sessions_agent_id_users_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_sessions" ADD CONSTRAINT "agent_sessions_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_activities_session_idx" ON "agent_activities" USING btree ("session_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_sessions_open_key" ON "agent_sessions" USING btree ("task_id","agent_id") WHERE "agent_sessions"."state" in ('pending', 'active', 'awaiting_input');--> statement-breakpoint
CREATE INDEX "agent_sessions_list_idx" ON "agent_sessions" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "agent_sessions_agent_idx" ON "agent_sessions" USING btree ("agent_id","created_at","id");--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_delegate_id_users_id_fk" FOREIGN KEY ("delegate_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tasks_delegate_idx" ON "tasks" USING btree ("delegate_id");--> statement-breakpoint
-- hand-written
-- Agent sessions and their activities are events (docs/events.md): a session's insert `agent_session.created`, each
-- change the one its function names (`prompted`, `stopped`, else `updated`), an activity `agent_activity.created`. The
-- function's live text is migrations/functions/pm_agent_session_event.sql; this stub lets the trigger be created first.
CREATE FUNCTION pm_agent_session_event() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;--> statement-breakpoint
CREATE TRIGGER agent_sessions_inserted AFTER INSERT ON agent_sessions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events('agent_session');--> statement-breakpoint
CREATE TRIGGER agent_sessions_changed AFTER UPDATE ON agent_sessions FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION pm_agent_session_event();--> statement-breakpoint
CREATE TRIGGER agent_activities_inserted AFTER INSERT ON agent_activities REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events('agent_activity');
