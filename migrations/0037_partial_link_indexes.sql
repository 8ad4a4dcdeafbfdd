DROP INDEX "tasks_project_idx";--> statement-breakpoint
DROP INDEX "tasks_milestone_idx";--> statement-breakpoint
DROP INDEX "tasks_parent_idx";--> statement-breakpoint
DROP INDEX "tasks_assignee_idx";--> statement-breakpoint
DROP INDEX "tasks_delegate_idx";--> statement-breakpoint
DROP INDEX "tasks_cycle_idx";--> statement-breakpoint
CREATE INDEX "tasks_project_idx" ON "tasks" USING btree ("project_id") WHERE "project_id" is not null;--> statement-breakpoint
CREATE INDEX "tasks_milestone_idx" ON "tasks" USING btree ("milestone_id") WHERE "milestone_id" is not null;--> statement-breakpoint
CREATE INDEX "tasks_parent_idx" ON "tasks" USING btree ("parent_id") WHERE "parent_id" is not null;--> statement-breakpoint
CREATE INDEX "tasks_assignee_idx" ON "tasks" USING btree ("assignee_id") WHERE "assignee_id" is not null;--> statement-breakpoint
CREATE INDEX "tasks_delegate_idx" ON "tasks" USING btree ("delegate_id") WHERE "delegate_id" is not null;--> statement-breakpoint
CREATE INDEX "tasks_cycle_idx" ON "tasks" USING btree ("cycle_id") WHERE "cycle_id" is not null;