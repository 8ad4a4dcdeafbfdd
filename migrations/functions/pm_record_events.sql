-- The event of each row a statement inserted, updated or deleted (transition tables), once per statement: an import of
-- thousands of rows records their events in a few set-based queries, not a few queries per row.
-- Generic plans, made once per backend (plan_cache_mode): see pm_emit. A plan is made for the transition tables' size at
-- its first use, and a backend's first use is most often one row (a PATCH): a nested loop joining one row to one, which
-- then joined a bulk write's thousand rows to a thousand (1.5 s instead of 0.2 through a pooled connection; test
-- test/smoke/trigger-plans.test.mjs). Without nested loops (enable_nestloop), its joins are hashed or merged, whatever
-- the size; what it calls sets its own (pm_emit).
CREATE OR REPLACE FUNCTION pm_record_events() RETURNS trigger LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan SET enable_nestloop = off AS $$
DECLARE
  kind text := TG_ARGV[0];
  -- Besides bookkeeping, a task's claim: its changes are events of their own (task.claimed|released, migration 0025).
  bookkeeping constant text[] := ARRAY['updated_at', 'last_used_at', 'failing_since', 'claim_holder_id', 'claim_expires_at'];
  labelled constant boolean := kind IN ('task', 'project');
  changes pm_change[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    -- A row just inserted has no label links yet (they point at it, so they come after it).
    SELECT array_agg(ROW(CASE WHEN kind = 'workspace' THEN a->>'id' ELSE a->>'workspace_id' END, a->>'id', NULL, a,
        CASE WHEN labelled THEN '{}'::text[] END, NULL, NULL)::pm_change)
      INTO changes FROM (SELECT pm_image(n) AS a FROM new_rows n) r;
  ELSIF TG_OP = 'UPDATE' AND (SELECT count(*) = count(DISTINCT x.id) FROM old_rows x) THEN
    -- Each row updated once (the usual case, and a bulk write's thousand rows): its two versions, paired by id, each
    -- made JSON once (materialized: inlined, the comparison and the output made each image twice).
    WITH pairs AS MATERIALIZED (SELECT pm_image(o) AS b, pm_image(n) AS a FROM old_rows o JOIN new_rows n ON n.id = o.id),
      changed AS (SELECT * FROM pairs WHERE (b - bookkeeping) <> (a - bookkeeping)),
      labelled_now AS (SELECT * FROM pm_labels_of_all(kind, ARRAY(SELECT a->>'id' FROM changed)))
    SELECT array_agg(ROW(CASE WHEN kind = 'workspace' THEN a->>'id' ELSE a->>'workspace_id' END, a->>'id', b, a,
        CASE WHEN labelled THEN coalesce(l.labels, '{}') END, NULL, NULL)::pm_change)
      INTO changes FROM changed LEFT JOIN labelled_now l ON l.record_id = changed.a->>'id';
  ELSIF TG_OP = 'UPDATE' THEN
    -- Foreign-key actions may update a row twice in one statement (a project deleted: its tasks lose their project and
    -- their milestone), and the transition tables then hold both versions: the change is from the version no update
    -- produced to the one no update replaced.
    WITH o AS (SELECT pm_image(x) AS i, to_jsonb(x) AS v FROM old_rows x),
      n AS (SELECT pm_image(x) AS i, to_jsonb(x) AS v FROM new_rows x),
      originals AS (SELECT o.i FROM o WHERE NOT EXISTS (SELECT 1 FROM n WHERE n.v = o.v)),
      finals AS (SELECT n.i FROM n WHERE NOT EXISTS (SELECT 1 FROM o WHERE o.v = n.v)),
      pairs AS (SELECT originals.i AS b, finals.i AS a FROM originals JOIN finals ON finals.i->>'id' = originals.i->>'id'
        WHERE (originals.i - bookkeeping) <> (finals.i - bookkeeping)),
      labelled_now AS (SELECT * FROM pm_labels_of_all(kind, ARRAY(SELECT a->>'id' FROM pairs)))
    SELECT array_agg(ROW(CASE WHEN kind = 'workspace' THEN a->>'id' ELSE a->>'workspace_id' END, a->>'id', b, a,
        CASE WHEN labelled THEN coalesce(l.labels, '{}') END, NULL, NULL)::pm_change)
      INTO changes FROM pairs LEFT JOIN labelled_now l ON l.record_id = pairs.a->>'id';
  ELSE
    SELECT array_agg(ROW(CASE WHEN kind = 'workspace' THEN b->>'id' ELSE b->>'workspace_id' END, b->>'id', b, NULL, NULL, NULL,
        NULL)::pm_change)
      INTO changes FROM (SELECT pm_image(o) AS b FROM old_rows o) r;
  END IF;
  IF changes IS NOT NULL THEN
    PERFORM pm_emit(kind, CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END, changes);
  END IF;
  RETURN NULL;
END $$;
