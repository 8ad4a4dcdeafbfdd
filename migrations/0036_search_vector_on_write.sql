-- hand-written: search_vector is written by a trigger (pm_search_vector) when a row is made or a write names its title,
-- name or description, no longer a stored generated column, which PostgreSQL recomputed on every UPDATE of the row (the
-- tables have BEFORE UPDATE row triggers). The values stay; the function's text is its file's
-- (migrations/functions/pm_search_vector.sql), which runs after this. A later migration that rewrites titles or
-- descriptions with the table's triggers disabled writes the vectors too.
CREATE FUNCTION pm_search_vector() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "search_vector" DROP EXPRESSION;--> statement-breakpoint
ALTER TABLE "projects" ALTER COLUMN "search_vector" DROP EXPRESSION;--> statement-breakpoint
ALTER TABLE "milestones" ALTER COLUMN "search_vector" DROP EXPRESSION;--> statement-breakpoint
CREATE TRIGGER tasks_search_vector BEFORE INSERT OR UPDATE OF title, description ON tasks FOR EACH ROW EXECUTE FUNCTION pm_search_vector();--> statement-breakpoint
CREATE TRIGGER projects_search_vector BEFORE INSERT OR UPDATE OF name, description ON projects FOR EACH ROW EXECUTE FUNCTION pm_search_vector();--> statement-breakpoint
CREATE TRIGGER milestones_search_vector BEFORE INSERT OR UPDATE OF name, description ON milestones FOR EACH ROW EXECUTE FUNCTION pm_search_vector();--> statement-breakpoint
COMMENT ON COLUMN "tasks"."search_vector" IS 'GET /search: title weight A, description D (simple); written by pm_search_vector, not declared in Drizzle';--> statement-breakpoint
COMMENT ON COLUMN "projects"."search_vector" IS 'GET /search: name weight A, description D (simple); written by pm_search_vector, not declared in Drizzle';--> statement-breakpoint
COMMENT ON COLUMN "milestones"."search_vector" IS 'GET /search: name weight A, description D (simple); written by pm_search_vector, not declared in Drizzle';
