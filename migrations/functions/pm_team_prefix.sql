-- A team takes a prefix (created, or renamed: docs/api.md "Ids and names", docs/sync.md "A team renamed"), in the
-- statement that writes the team.
-- - The prefix it takes is nobody's former prefix any more: from now on its names are this team's records.
-- - On a rename, the old prefix becomes the team's former one (team_former_prefixes), so `ENG-12` keeps naming the task
--   that is now `OPS-12` until another team takes `ENG`; and every record named after the team gets its
--   `<kind>.updated` event with `reference` from the old name to the new, so a copy kept by events holds the new names
--   (docs/sync.md). Written through pm_emit in chunks of 5,000 records: a bounded array per call, whatever the
--   team's size, and one event per record, all in the rename's own transaction.
CREATE OR REPLACE FUNCTION pm_team_prefix() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  numbered record;
  ids text[];
  chunk pm_change[];
BEGIN
  DELETE FROM team_former_prefixes WHERE workspace_id = NEW.workspace_id AND prefix = NEW.prefix;
  IF TG_OP = 'INSERT' OR OLD.prefix = NEW.prefix THEN
    RETURN NULL;
  END IF;
  INSERT INTO team_former_prefixes (workspace_id, prefix, team_id) VALUES (NEW.workspace_id, OLD.prefix, NEW.id)
    ON CONFLICT (workspace_id, prefix) DO UPDATE SET team_id = excluded.team_id, renamed_at = excluded.renamed_at;
  FOR numbered IN SELECT * FROM (VALUES ('tasks', 'task'), ('projects', 'project'), ('cycles', 'cycle')) AS t(tbl, kind) LOOP
    -- Read as the writes under way leave them: a transaction that locked a record before changing it (its first
    -- write) is waited for here (pm_team_key holds off the others).
    EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM %I WHERE team_id = $1 FOR SHARE) r', numbered.tbl) USING NEW.id;
    FOR ids IN EXECUTE format('SELECT array_agg(id) FROM (SELECT id, (row_number() OVER (ORDER BY id) - 1) / 5000 AS part
        FROM %I WHERE team_id = $1) r GROUP BY part ORDER BY part', numbered.tbl) USING NEW.id
    LOOP
      EXECUTE format('SELECT array_agg(ROW(r.workspace_id, r.id,
          pm_image(r) || jsonb_build_object(''reference'', pm_reference(%L, $1, r.number::text)),
          pm_image(r) || jsonb_build_object(''reference'', pm_reference(%L, $2, r.number::text)),
          coalesce(l.labels, ''{}''), NULL, NULL)::pm_change)
        FROM %I r LEFT JOIN pm_labels_of_all(%L, $3) l ON l.record_id = r.id WHERE r.id = ANY ($3)',
        numbered.kind, numbered.kind, numbered.tbl, numbered.kind)
        INTO chunk USING OLD.prefix, NEW.prefix, ids;
      PERFORM pm_emit(numbered.kind, 'updated', chunk);
    END LOOP;
  END LOOP;
  RETURN NULL;
END $$;
