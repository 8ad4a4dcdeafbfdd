-- Settles a request whose outcome is unknown, in one round trip on a connection of its own: sets the attempt's fence,
-- takes the attempt's lock (so nothing of the attempt runs any more, and nothing can start), after a second's wait by
-- ending the backend that still holds it (the request's own, given up on: a COMMIT in flight there lands or not before
-- it exits), then returns the events the request's writes committed (its request id, in events made since `since`, a
-- floor of their time-ordered ids). Lock waits are bounded: past them the outcome stays unknown and the caller says so.
CREATE OR REPLACE FUNCTION pm_settle(attempt text, request text, since text)
RETURNS TABLE (type text, resource_type text, resource_id text) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  k bigint := hashtextextended(attempt, 40);
BEGIN
  PERFORM set_config('lock_timeout', '1000', true);
  DELETE FROM write_fences WHERE created_at < now() - interval '1 day';
  INSERT INTO write_fences (attempt) VALUES (pm_settle.attempt) ON CONFLICT DO NOTHING;
  BEGIN
    PERFORM pg_advisory_xact_lock(k);
  EXCEPTION WHEN lock_not_available THEN
    PERFORM pg_terminate_backend(l.pid, 1000) FROM pg_locks l
      WHERE l.locktype = 'advisory' AND l.granted AND l.pid <> pg_backend_pid() AND l.objsubid = 1
        AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
        AND l.classid = ((k >> 32) & 4294967295)::oid AND l.objid = (k & 4294967295)::oid;
    PERFORM pg_advisory_xact_lock(k);
  END;
  RETURN QUERY SELECT e.type, e.resource_type, e.resource_id FROM events e
    WHERE e.id >= since AND e.request_id = request ORDER BY e.position;
END $$;
