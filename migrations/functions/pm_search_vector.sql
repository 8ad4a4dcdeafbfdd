-- GET /search's tsvector of a task, project or milestone (its title or name weighted A, its description D, the 'simple'
-- configuration), written when the row is made and when a write names its title, name or description. A stored
-- generated column until migration 0036: PostgreSQL recomputes every generated column of a row on each UPDATE when the
-- table has a BEFORE UPDATE row trigger (tasks_state, the team-rename fences), so a PATCH of a priority, and each task of a
-- bulk write, rebuilt the description's vector (about 0.15 ms a row for 2 KB of text).
CREATE OR REPLACE FUNCTION pm_search_vector() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Each branch names its own table's columns: PL/pgSQL prepares a statement when it first runs, for that row type.
  IF TG_TABLE_NAME = 'tasks' THEN
    IF TG_OP = 'INSERT' OR NEW.title IS DISTINCT FROM OLD.title OR NEW.description IS DISTINCT FROM OLD.description THEN
      NEW.search_vector := setweight(to_tsvector('simple', NEW.title), 'A') || setweight(to_tsvector('simple', NEW.description), 'D');
    END IF;
  ELSIF TG_OP = 'INSERT' OR NEW.name IS DISTINCT FROM OLD.name OR NEW.description IS DISTINCT FROM OLD.description THEN
    NEW.search_vector := setweight(to_tsvector('simple', NEW.name), 'A') || setweight(to_tsvector('simple', NEW.description), 'D');
  END IF;
  RETURN NEW;
END $$;
