-- Reserves `n` positions of this transaction and returns the one before them: its id (xid8) shifted 20 bits, plus the
-- events' ranks in it.
CREATE OR REPLACE FUNCTION pm_reserve_positions(n int) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  taken int := coalesce(nullif(current_setting('pm.seq', true), '')::int, 0);
BEGIN
  IF taken + n >= 1048576 THEN
    RAISE EXCEPTION 'more than 1048575 changes in one transaction' USING ERRCODE = '54000';
  END IF;
  PERFORM set_config('pm.seq', (taken + n)::text, true);
  RETURN (pg_current_xact_id()::text::bigint << 20) | taken;
END $$;
