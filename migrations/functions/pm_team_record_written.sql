-- Before a task or project row changes or goes: its team's rename lock, shared (pm_team_key), held to the commit. In
-- memory only (no transaction id, nothing written), so concurrent writes never wait for each other here.
CREATE OR REPLACE FUNCTION pm_team_record_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(pm_team_key(OLD.team_id));
  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END $$;
