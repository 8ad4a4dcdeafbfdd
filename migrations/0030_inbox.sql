CREATE TYPE "public"."notification_email" AS ENUM('off', 'mentions', 'all');--> statement-breakpoint
CREATE TYPE "public"."notification_type" AS ENUM('mentioned', 'assigned', 'delegated', 'commented', 'status_changed');--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"user_id" text NOT NULL,
	"type" "notification_type" NOT NULL,
	"task_id" text NOT NULL,
	"team_id" text NOT NULL,
	"comment_id" text,
	"actor_id" text,
	"event_id" text,
	"read_at" timestamp (3) with time zone,
	"archived_at" timestamp (3) with time zone,
	"snoozed_until" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "task_subscriptions" (
	"task_id" text NOT NULL,
	"user_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"subscribed" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "task_subscriptions_task_id_user_id_pk" PRIMARY KEY("task_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "email_outbox" ALTER COLUMN "sealed_message" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "email_outbox" ADD COLUMN "notification_id" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "handle" text DEFAULT null;--> statement-breakpoint
-- Every existing user's handle, oldest first, as pm_user_handle makes a new user's (a one-time backfill; the function
-- file comes after the versioned migrations).
DO $$
DECLARE
  u record;
  base text;
  candidate text;
  n int;
BEGIN
  FOR u IN SELECT id, name, email FROM users ORDER BY created_at, id LOOP
    base := trim(TRAILING '-' FROM coalesce(
      nullif(left(trim(BOTH '-' FROM regexp_replace(lower(u.name), '[^a-z0-9]+', '-', 'g')), 34), ''),
      nullif(left(trim(BOTH '-' FROM regexp_replace(lower(split_part(u.email, '@', 1)), '[^a-z0-9]+', '-', 'g')), 34), ''),
      'user'));
    candidate := base;
    n := 1;
    WHILE EXISTS (SELECT 1 FROM users WHERE handle = candidate) LOOP
      n := n + 1;
      candidate := base || n;
    END LOOP;
    UPDATE users SET handle = candidate WHERE id = u.id;
  END LOOP;
END $$;--> statement-breakpoint
ALTER TABLE "users" ALTER COLUMN "handle" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "notification_email" "notification_email" DEFAULT 'mentions' NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_comment_id_comments_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."comments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_subscriptions" ADD CONSTRAINT "task_subscriptions_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_subscriptions" ADD CONSTRAINT "task_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_subscriptions" ADD CONSTRAINT "task_subscriptions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notifications_inbox_idx" ON "notifications" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "notifications_unread_idx" ON "notifications" USING btree ("user_id") WHERE "notifications"."read_at" is null and "notifications"."archived_at" is null;--> statement-breakpoint
CREATE INDEX "notifications_task_idx" ON "notifications" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "notifications_mention_idx" ON "notifications" USING btree ("task_id","user_id","comment_id") WHERE "notifications"."type" = 'mentioned';--> statement-breakpoint
CREATE INDEX "task_subscriptions_list_idx" ON "task_subscriptions" USING btree ("task_id","created_at","user_id");--> statement-breakpoint
ALTER TABLE "email_outbox" ADD CONSTRAINT "email_outbox_notification_id_notifications_id_fk" FOREIGN KEY ("notification_id") REFERENCES "public"."notifications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "email_outbox_notification_key" ON "email_outbox" USING btree ("notification_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_handle_key" ON "users" USING btree ("handle");--> statement-breakpoint
ALTER TABLE "email_outbox" ADD CONSTRAINT "email_outbox_one_message" CHECK (num_nonnulls("email_outbox"."sealed_message", "email_outbox"."notification_id") = 1);--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_handle_form" CHECK ("users"."handle" ~ '^[a-z0-9][a-z0-9-]{0,38}$');--> statement-breakpoint
-- Stubs: the function files (pm_user_handle.sql, pm_notify_rows.sql) replace them in the same run.
CREATE FUNCTION pm_user_handle() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;--> statement-breakpoint
CREATE FUNCTION pm_notify_rows() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;--> statement-breakpoint
CREATE TRIGGER users_handle BEFORE INSERT ON users FOR EACH ROW WHEN (NEW.handle IS NULL) EXECUTE FUNCTION pm_user_handle();--> statement-breakpoint
-- Named to sort after tasks_updated / comments_inserted…: a statement's AFTER triggers fire in name order, and the
-- notifications name the event those wrote.
CREATE TRIGGER tasks_watchers_inserted AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_notify_rows('task');--> statement-breakpoint
CREATE TRIGGER tasks_watchers_updated AFTER UPDATE ON tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_notify_rows('task');--> statement-breakpoint
CREATE TRIGGER comments_watchers_inserted AFTER INSERT ON comments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_notify_rows('comment');--> statement-breakpoint
CREATE TRIGGER comments_watchers_updated AFTER UPDATE ON comments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_notify_rows('comment');--> statement-breakpoint
-- The followers of existing tasks: creators, assignees, delegates and commenters.
INSERT INTO task_subscriptions (task_id, user_id, workspace_id)
SELECT id, u, workspace_id FROM tasks, unnest(ARRAY[creator_id, assignee_id, delegate_id]) u WHERE u IS NOT NULL
UNION SELECT task_id, author_id, workspace_id FROM comments WHERE task_id IS NOT NULL
ON CONFLICT DO NOTHING;
