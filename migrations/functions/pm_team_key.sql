-- The advisory lock that orders a team's rename with the writes of the records named after it (docs/sync.md, "A team
-- renamed"): a write of a task, project or cycle holds it shared (pm_team_record_written; a create, from before its
-- team's counter row, and an import, from before it locks the team: renameLockShared in src/db/event-context.ts) to its commit; a rename takes it alone before it writes anything, so it waits for the writes under way, and the writes
-- after it wait for its commit. An advisory lock takes no transaction id, so each side's events take their positions
-- in the order the lock gave them, and a write's reference is read with the prefix its position says.
CREATE OR REPLACE FUNCTION pm_team_key(team_id text) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT hashtextextended('team:' || team_id, 51)
$$;
