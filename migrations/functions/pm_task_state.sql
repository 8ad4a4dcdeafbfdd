-- A task's workflow state (docs/api.md, "Workflow states"), kept in the statement that writes the task, whichever path writes it (REST, MCP,
-- claims, bulk writes, a relation's duplicate, an import): `status` names a state of the task's team by its key or its
-- name (any case) and is stored as the key; left out, it is the team's first `unstarted` state by position. The task's
-- `status_category` is its state's (the one truth other rules read), and `started_at`, `completed_at`, `canceled_at`
-- are set when the task enters that category and cleared when it leaves it. A status naming no state of the team is
-- refused as the check `tasks_status_state` (422 naming `status`, src/http/error-mapper.ts), except in an import, which
-- creates the keys it lacks (as the defaults have them, else `unstarted`). A state's change of category sets its tasks'
-- `status_category` alone (src/resources/states/operations.ts): their times follow it here.
CREATE OR REPLACE FUNCTION pm_task_state() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  given text := NEW.status;
  chosen record;
BEGIN
  IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
    IF given IS NULL THEN
      SELECT s.key, s.category INTO chosen FROM workflow_states s WHERE s.team_id = NEW.team_id AND s.category = 'unstarted'
        ORDER BY s.position, s.id LIMIT 1;
    ELSE
      -- A key first (keys are upper case), then a name: a name that is another state's key names that state.
      SELECT s.key, s.category INTO chosen FROM workflow_states s
        WHERE s.team_id = NEW.team_id AND (s.key = upper(given) OR s.name_key = lower(given))
        ORDER BY s.key = upper(given) DESC LIMIT 1;
      IF NOT FOUND AND upper(given) ~ '^[A-Z0-9_]{1,32}$'
          AND nullif(current_setting('pm.ctx', true), '')::jsonb ->> 'via' = 'import' THEN
        INSERT INTO workflow_states AS s (id, workspace_id, team_id, key, name, category, position, color)
          SELECT pm_typeid('sta'), NEW.workspace_id, NEW.team_id, upper(given), coalesce(d.name, upper(given)),
            coalesce(d.category, 'unstarted'), (SELECT coalesce(max(o.position) + 1, 0) FROM workflow_states o WHERE o.team_id = NEW.team_id),
            coalesce(d.color, '#E2E2E2')
          FROM (SELECT 1) AS one LEFT JOIN pm_default_states() d ON d.key = upper(given)
          RETURNING s.key, s.category INTO chosen;
      END IF;
    END IF;
    IF chosen.key IS NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'check_violation', CONSTRAINT = 'tasks_status_state', TABLE = 'tasks', COLUMN = 'status',
        MESSAGE = format('%s names no workflow state of the task''s team', coalesce(given, 'No status')),
        -- The task's reference: a bulk write (src/resources/tasks/bulk.ts) names the task it refuses.
        DETAIL = coalesce((SELECT t.prefix FROM teams t WHERE t.id = NEW.team_id) || '-' || NEW.number, '');
    END IF;
    NEW.status := chosen.key;
    NEW.status_category := chosen.category;
  END IF;
  IF TG_OP = 'INSERT' OR NEW.status_category IS DISTINCT FROM OLD.status_category THEN
    NEW.started_at := CASE WHEN NEW.status_category = 'started' THEN CASE WHEN TG_OP = 'INSERT' THEN coalesce(NEW.started_at, now()) ELSE now() END END;
    NEW.completed_at := CASE WHEN NEW.status_category = 'completed' THEN CASE WHEN TG_OP = 'INSERT' THEN coalesce(NEW.completed_at, now()) ELSE now() END END;
    NEW.canceled_at := CASE WHEN NEW.status_category = 'canceled' THEN CASE WHEN TG_OP = 'INSERT' THEN coalesce(NEW.canceled_at, now()) ELSE now() END END;
  END IF;
  RETURN NEW;
END $$;
