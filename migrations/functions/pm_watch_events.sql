-- GET /events?wait= (docs/events.md, "Waiting for the next event"): the latest readable position of each workspace
-- waited on (`watched`: [{id, seen}], `seen` the position its waiters last read, null for none), answered as soon as
-- one has moved past it, or empty after `wait_ms`. One statement for every waiter of a Worker isolate: it checks each workspace's newest event below the
-- stable position (an index probe of events_stream_idx) every 100 ms, sleeping in between, so the Worker sends one
-- statement a second however many clients wait. Read-only: it takes no transaction id, so it holds no other reader back.
CREATE OR REPLACE FUNCTION pm_watch_events(watched jsonb, wait_ms integer)
RETURNS TABLE (workspace_id text, latest bigint) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  deadline timestamptz := clock_timestamp() + make_interval(secs => least(greatest(wait_ms, 0), 5000) / 1000.0);
BEGIN
  LOOP
    RETURN QUERY
      SELECT w.id, l.latest FROM jsonb_to_recordset(watched) AS w(id text, seen bigint)
      CROSS JOIN LATERAL (SELECT max(e.position) AS latest FROM events e
        WHERE e.workspace_id = w.id AND e.position < pm_stable_position()) AS l
      WHERE l.latest > w.seen OR (w.seen IS NULL AND l.latest IS NOT NULL);
    EXIT WHEN FOUND OR clock_timestamp() >= deadline;
    PERFORM pg_sleep(least(0.1, greatest(extract(epoch FROM deadline - clock_timestamp()), 0)));
  END LOOP;
END $$;
