-- drizzle/schema.ts stops declaring search_vector (a typed INSERT … SELECT must list every declared column, and a
-- generated one cannot be inserted); the columns and GIN indexes of 0004 stay exactly as they are.
COMMENT ON COLUMN "tasks"."search_vector" IS 'GET /search: title weight A, description D (simple); generated, not declared in Drizzle';--> statement-breakpoint
COMMENT ON COLUMN "projects"."search_vector" IS 'GET /search: name weight A, description D (simple); generated, not declared in Drizzle';--> statement-breakpoint
COMMENT ON COLUMN "milestones"."search_vector" IS 'GET /search: name weight A, description D (simple); generated, not declared in Drizzle';
