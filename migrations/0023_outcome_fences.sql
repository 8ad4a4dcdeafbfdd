CREATE TABLE "write_fences" (
	"attempt" text PRIMARY KEY NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "write_fences_created_idx" ON "write_fences" USING btree ("created_at");--> statement-breakpoint

-- A write's fence (src/db/outcome.ts): every write takes it in its own round trip (a one-statement write in its
-- statement, a transaction in its BEGIN) before it changes anything, and holds it to its end. When a request's outcome
-- is unknown (its connection was lost after a statement went out), the API stores the attempt here and then takes the
-- same lock: from then on a write of that attempt that still arrives finds the row and writes nothing, and one that
-- was already running has ended, so whether it committed can be looked up. VOLATILE: its query takes a snapshot of its
-- own, after the lock is held, so a fence set while it waited is seen.
CREATE OR REPLACE FUNCTION pm_fence(attempt text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(attempt, 40));
  IF EXISTS (SELECT 1 FROM write_fences f WHERE f.attempt = pm_fence.attempt) THEN
    RAISE EXCEPTION 'this request was given up after its connection failed; nothing of it is written'
      USING ERRCODE = '40001';
  END IF;
  RETURN true;
END $$;
--> statement-breakpoint

-- Settles a request whose outcome is unknown, in one round trip on a connection of its own: sets the attempt's fence,
-- takes the attempt's lock (so nothing of the attempt runs any more, and nothing can start), after a second's wait by
-- ending the backend that still holds it (the request's own, given up on: a COMMIT in flight there lands or not before
-- it exits), then returns
-- the events the request's writes committed (its request id, in events made since `since`, a floor of their time-ordered
-- ids). Lock waits are bounded: past them the outcome stays unknown and the caller says so.
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
