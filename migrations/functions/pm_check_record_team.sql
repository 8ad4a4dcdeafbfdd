-- A team named by the writer is its parent's, checked once per statement over its rows (a parent that is gone already
-- failed its foreign key, whose check comes first).
CREATE OR REPLACE FUNCTION pm_check_record_team() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  wrong text;
BEGIN
  IF TG_TABLE_NAME = 'milestones' THEN
    SELECT n.id INTO wrong FROM new_rows n LEFT JOIN projects p ON p.id = n.project_id
      WHERE p.team_id IS DISTINCT FROM n.team_id LIMIT 1;
  ELSE
    SELECT n.id INTO wrong FROM new_rows n
      LEFT JOIN tasks t ON t.id = n.task_id LEFT JOIN projects p ON p.id = n.project_id LEFT JOIN milestones m ON m.id = n.milestone_id
      WHERE coalesce(t.team_id, p.team_id, m.team_id) IS DISTINCT FROM n.team_id LIMIT 1;
  END IF;
  IF wrong IS NOT NULL THEN
    RAISE foreign_key_violation USING MESSAGE = format('%s %s: its team is not the team of the record it belongs to', TG_TABLE_NAME, wrong);
  END IF;
  RETURN NULL;
END $$;
