-- A create evaluates this before it takes its team's counter lock (src/db/event-context.ts, eventsWarmed): pm_emit with
-- no changes compiles, plans its statement and opens the events table and its indexes, and writes nothing (no event, no
-- position). On a fresh backend that first use cost several milliseconds, and the triggers paid it under the lock the
-- team's other creates wait on.
CREATE OR REPLACE FUNCTION pm_warm_events() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pm_emit('task', 'created', '{}');
  RETURN true;
END $$;
