-- GET /search's tsvector of a task, project or milestone (its title or name weighted A, its description D, the 'simple'
-- configuration), written when the row is made and when a write names its title, name or description. A stored
-- generated column until migration 0036: PostgreSQL recomputes every generated column of a row on each UPDATE when the
-- table has a BEFORE UPDATE row trigger (tasks_state, the team-rename fences), so a PATCH of a priority, and each task
-- of a bulk write, rebuilt the description's vector (about 0.15 ms a row for 2 KB of text).
CREATE OR REPLACE FUNCTION pm_search_vector() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  heading text;
  old_heading text;
BEGIN
  -- A task's heading is its title, a project's or milestone's its name. Each branch names its own table's column:
  -- PL/pgSQL prepares a statement when it first runs, for that row type.
  IF TG_TABLE_NAME = 'tasks' THEN
    heading := NEW.title;
    IF TG_OP = 'UPDATE' THEN old_heading := OLD.title; END IF;
  ELSE
    heading := NEW.name;
    IF TG_OP = 'UPDATE' THEN old_heading := OLD.name; END IF;
  END IF;
  IF TG_OP = 'INSERT' OR heading IS DISTINCT FROM old_heading OR NEW.description IS DISTINCT FROM OLD.description THEN
    NEW.search_vector := setweight(to_tsvector('simple', heading), 'A') || setweight(to_tsvector('simple', NEW.description), 'D');
  END IF;
  RETURN NEW;
END $$;
