-- A change of an agent session (docs/agents.md): stopped by a person (`agent_session.stopped`), prompted by one
-- (`agent_session.prompted`: a prompt makes it pending again), else `agent_session.updated` (the agent's activity moved its
-- state or its last activity). The session's delete goes with its task and is no event of its own.
CREATE OR REPLACE FUNCTION pm_agent_session_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pm_emit('agent_session',
    CASE WHEN NEW.state = 'stopped' AND OLD.state <> 'stopped' THEN 'stopped'
      WHEN NEW.state = 'pending' AND NEW.last_activity_at IS DISTINCT FROM OLD.last_activity_at THEN 'prompted'
      ELSE 'updated' END,
    ARRAY[ROW(NEW.workspace_id, NEW.id, pm_image(OLD), pm_image(NEW), NULL, NULL, NULL)::pm_change]);
  RETURN NULL;
END $$;
