-- GET /search: each search index leads with workspace_id, so a search finds only its workspace's matches in the index
-- (before, the index answered every workspace's matches and the rows of the others were read and dropped one by one:
-- a search in a workspace of 1,000 tasks read the 22,000 matching rows of a neighbour's million). A GIN index takes a
-- text column with btree_gin's operator class (a contrib extension, available on Neon).
CREATE EXTENSION IF NOT EXISTS btree_gin;--> statement-breakpoint
DROP INDEX "milestones_search_idx";--> statement-breakpoint
DROP INDEX "projects_search_idx";--> statement-breakpoint
DROP INDEX "tasks_search_idx";--> statement-breakpoint
CREATE INDEX "milestones_search_idx" ON "milestones" USING gin ("workspace_id",search_vector);--> statement-breakpoint
CREATE INDEX "projects_search_idx" ON "projects" USING gin ("workspace_id",search_vector);--> statement-breakpoint
CREATE INDEX "tasks_search_idx" ON "tasks" USING gin ("workspace_id",search_vector);