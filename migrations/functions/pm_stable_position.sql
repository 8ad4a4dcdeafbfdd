-- Positions below this are final: every transaction that could still add one has a larger id.
CREATE OR REPLACE FUNCTION pm_stable_position() RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 20
$$;
