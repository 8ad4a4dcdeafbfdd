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
