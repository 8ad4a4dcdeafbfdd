-- A create evaluates this before it takes its team's counter lock (src/db/event-context.ts, eventsWarmed): pm_emit with
-- no changes compiles, plans its statement and opens the events table and its indexes, and writes nothing (no event, no
-- position). On a fresh backend that first use cost several milliseconds, and the triggers paid it under the lock the
-- team's other creates wait on. Once per backend: on a warm one the empty call still cost about 0.4 ms a create, so a
-- session setting remembers it (set only by a transaction that commits; DISCARD ALL resets it with the plans it stands
-- for). A migration that replaces pm_emit leaves it set: that backend's next create plans pm_emit under the lock, once.
CREATE OR REPLACE FUNCTION pm_warm_events() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF current_setting('pm.events_warm', true) IS DISTINCT FROM 'on' THEN
    PERFORM pm_emit('task', 'created', '{}');
    PERFORM set_config('pm.events_warm', 'on', false);
  END IF;
  RETURN true;
END $$;
