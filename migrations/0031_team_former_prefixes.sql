CREATE TABLE "team_former_prefixes" (
	"workspace_id" text NOT NULL,
	"prefix" text NOT NULL,
	"team_id" text NOT NULL,
	"renamed_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_former_prefixes_workspace_id_prefix_pk" PRIMARY KEY("workspace_id","prefix")
);
--> statement-breakpoint
ALTER TABLE "team_former_prefixes" ADD CONSTRAINT "team_former_prefixes_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_former_prefixes" ADD CONSTRAINT "team_former_prefixes_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "team_former_prefixes_team_idx" ON "team_former_prefixes" USING btree ("team_id");--> statement-breakpoint
-- A team's prefix taken or changed: its former prefixes kept, and the events of the records named after it
-- (migrations/functions/pm_team_prefix.sql, which replaces this stub in the same run).
CREATE FUNCTION pm_team_prefix() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;--> statement-breakpoint
CREATE TRIGGER teams_prefix AFTER INSERT OR UPDATE OF prefix ON teams FOR EACH ROW EXECUTE FUNCTION pm_team_prefix();
--> statement-breakpoint
-- Writes of a team's tasks and projects hold its rename lock shared (migrations/functions/pm_team_record_written.sql).
CREATE FUNCTION pm_team_record_written() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;--> statement-breakpoint
CREATE TRIGGER tasks_team_written BEFORE UPDATE OR DELETE ON tasks FOR EACH ROW EXECUTE FUNCTION pm_team_record_written();--> statement-breakpoint
CREATE TRIGGER projects_team_written BEFORE UPDATE OR DELETE ON projects FOR EACH ROW EXECUTE FUNCTION pm_team_record_written();
