CREATE INDEX "tasks_priority_idx" ON "tasks" USING btree ("workspace_id","priority","id");--> statement-breakpoint
CREATE INDEX "tasks_updated_idx" ON "tasks" USING btree ("workspace_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "tasks_team_list_idx" ON "tasks" USING btree ("workspace_id","team_id","created_at","id");--> statement-breakpoint
CREATE INDEX "tasks_assignee_list_idx" ON "tasks" USING btree ("workspace_id","assignee_id","created_at","id");