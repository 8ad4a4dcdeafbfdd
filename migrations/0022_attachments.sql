CREATE TABLE "attachments" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"team_id" text NOT NULL,
	"task_id" text NOT NULL,
	"comment_id" text,
	"filename" text NOT NULL,
	"content_type" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"object_key" text NOT NULL,
	"creator_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "file_deletions" (
	"object_key" text PRIMARY KEY NOT NULL,
	"relay_after" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_comment_id_comments_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."comments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_creator_id_users_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "attachments_task_idx" ON "attachments" USING btree ("task_id","created_at","id");--> statement-breakpoint
CREATE INDEX "attachments_comment_idx" ON "attachments" USING btree ("comment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "attachments_object_key" ON "attachments" USING btree ("object_key");--> statement-breakpoint
CREATE INDEX "attachments_workspace_idx" ON "attachments" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "file_deletions_relay_after_idx" ON "file_deletions" USING btree ("relay_after");--> statement-breakpoint
-- Attachments are events like every tracked record (docs/events.md); 0021's pm_emit already puts them in their task's
-- history (task_ids).
CREATE TRIGGER attachments_inserted AFTER INSERT ON attachments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events('attachment');--> statement-breakpoint
CREATE TRIGGER attachments_deleted AFTER DELETE ON attachments REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events('attachment');--> statement-breakpoint
-- The stored bytes of every attachment deleted (itself, or with its comment or task by cascade) go through the outbox
-- (file_deletions), in the deleting transaction: the queue consumer removes them after the commit.
CREATE OR REPLACE FUNCTION pm_attachment_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO file_deletions (object_key) SELECT object_key FROM old_rows ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER attachments_files_gone AFTER DELETE ON attachments REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_attachment_gone();
