-- The six workflow states every team starts with (docs/api.md, "Workflow states"), in their order: pm_team_states gives them to a new
-- team, and an import that names one of their keys a team lacks creates it as it is here (pm_task_state).
CREATE OR REPLACE FUNCTION pm_default_states() RETURNS TABLE (key text, name text, category state_category, "position" double precision,
    color text) LANGUAGE sql IMMUTABLE AS $$
  VALUES ('BACKLOG', 'Backlog', 'backlog'::state_category, 0::double precision, '#BEC2C8'),
    ('TODO', 'Todo', 'unstarted', 1, '#E2E2E2'),
    ('IN_PROGRESS', 'In Progress', 'started', 2, '#F2C94C'),
    ('IN_REVIEW', 'In Review', 'started', 3, '#0F783C'),
    ('DONE', 'Done', 'completed', 4, '#5E6AD2'),
    ('CANCELED', 'Canceled', 'canceled', 5, '#95A2B3')
$$;
