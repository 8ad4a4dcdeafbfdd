DROP INDEX "milestones_search_idx";--> statement-breakpoint
DROP INDEX "projects_search_idx";--> statement-breakpoint
DROP INDEX "tasks_search_idx";--> statement-breakpoint
ALTER TABLE "milestones" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('simple', "name"), 'A') || setweight(to_tsvector('simple', "description"), 'D')) STORED;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('simple', "name"), 'A') || setweight(to_tsvector('simple', "description"), 'D')) STORED;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('simple', "title"), 'A') || setweight(to_tsvector('simple', "description"), 'D')) STORED;--> statement-breakpoint
CREATE INDEX "milestones_search_idx" ON "milestones" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "projects_search_idx" ON "projects" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "tasks_search_idx" ON "tasks" USING gin ("search_vector");