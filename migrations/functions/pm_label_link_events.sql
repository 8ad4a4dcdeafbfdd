-- Labels attached to or taken off tasks or projects are changes of those records (`labelIds`), once per statement, with
-- the records' images and label lists from joins. A record that is itself going (its links go with it) has its own event.
CREATE OR REPLACE FUNCTION pm_label_link_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  parent text := TG_ARGV[0];
  links jsonb;
  changes pm_change[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT jsonb_agg(to_jsonb(n)) INTO links FROM new_rows n;
  ELSE
    SELECT jsonb_agg(to_jsonb(o)) INTO links FROM old_rows o;
  END IF;
  WITH l AS (
    SELECT coalesce(l.task_id, l.project_id) AS pid, l.label_id
    FROM jsonb_to_recordset(links) AS l(task_id text, project_id text, label_id text)
  ), g AS (SELECT pid, array_agg(label_id) AS ids FROM l GROUP BY pid),
  images AS (
    SELECT t.id, pm_image(t) AS img FROM tasks t WHERE parent = 'task' AND t.id = ANY (ARRAY(SELECT pid FROM g))
    UNION ALL SELECT p.id, pm_image(p) FROM projects p WHERE parent = 'project' AND p.id = ANY (ARRAY(SELECT pid FROM g))
  ), labelled_now AS (SELECT * FROM pm_labels_of_all(parent, ARRAY(SELECT pid FROM g)))
  SELECT array_agg(ROW(i.img->>'workspace_id', g.pid, i.img, i.img, coalesce(l.labels, '{}'),
      CASE WHEN TG_OP = 'INSERT' THEN g.ids END, CASE WHEN TG_OP = 'DELETE' THEN g.ids END)::pm_change)
    INTO changes
    FROM g JOIN images i ON i.id = g.pid LEFT JOIN labelled_now l ON l.record_id = g.pid;
  IF changes IS NOT NULL THEN PERFORM pm_emit(parent, 'updated', changes); END IF;
  RETURN NULL;
END $$;
