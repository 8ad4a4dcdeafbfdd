-- The trigger: the rows a statement wrote that may notify (a task's text, assignee, delegate or status changed; a
-- comment written or its text changed), once per statement, for pm_notify.
-- Its join of the two transition tables is never a nested loop, whatever size its plan was made for: see pm_record_events.
CREATE OR REPLACE FUNCTION pm_notify_rows() RETURNS trigger LANGUAGE plpgsql SET enable_nestloop = off AS $$
DECLARE
  changes jsonb;
BEGIN
  -- An import notifies no one: its rows are not even gathered.
  IF nullif(current_setting('pm.ctx', true), '')::jsonb->>'via' = 'import' THEN RETURN NULL; END IF;
  IF TG_OP = 'INSERT' THEN
    SELECT jsonb_agg(jsonb_build_object('after', to_jsonb(n))) INTO changes FROM new_rows n;
  ELSIF TG_ARGV[0] = 'task' THEN
    SELECT jsonb_agg(jsonb_build_object('before', to_jsonb(o), 'after', to_jsonb(n))) INTO changes
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE n.description IS DISTINCT FROM o.description OR n.assignee_id IS DISTINCT FROM o.assignee_id
      OR n.delegate_id IS DISTINCT FROM o.delegate_id OR n.status IS DISTINCT FROM o.status;
  ELSE
    SELECT jsonb_agg(jsonb_build_object('before', to_jsonb(o), 'after', to_jsonb(n))) INTO changes
    FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.content IS DISTINCT FROM o.content;
  END IF;
  PERFORM pm_notify(TG_ARGV[0], changes);
  RETURN NULL;
END $$;
