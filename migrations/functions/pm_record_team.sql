-- The parent's team, for a row written without one (a writer that names it is checked by pm_check_record_team instead, set-based: the
-- API's inserts and imports name it, so a large import runs no function per row), and on any change of the parent or
-- the team. A parent that is not there is the foreign key's error (23503, a 409 "deleted meanwhile"), not a null team's.
CREATE OR REPLACE FUNCTION pm_record_team() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'milestones' THEN
    NEW.team_id := (SELECT team_id FROM projects WHERE id = NEW.project_id);
  ELSE
    NEW.team_id := coalesce(
      (SELECT team_id FROM tasks WHERE id = NEW.task_id),
      (SELECT team_id FROM projects WHERE id = NEW.project_id),
      (SELECT team_id FROM milestones WHERE id = NEW.milestone_id));
  END IF;
  IF NEW.team_id IS NULL THEN
    RAISE foreign_key_violation USING MESSAGE = format('%s %s: the record it belongs to does not exist', TG_TABLE_NAME, NEW.id);
  END IF;
  RETURN NEW;
END $$;
