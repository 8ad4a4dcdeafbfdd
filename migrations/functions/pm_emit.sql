-- The change feed's one source (docs/events.md): triggers on every tracked table write the event of each change in the
-- statement and transaction of the change, whichever code path made it. Who did it comes from the transaction's
-- `pm.ctx` setting (actor, via, requestId), which the API sets in the statement that writes (src/db/event-context.ts).
--
-- Records changes of records of one type, all at once (a statement's rows): a new event for each, or the change folded
-- into this transaction's event of the same record (created then updated is one `created`), so an operation is one
-- event per record it changes. `changes` is an array of pm_change (ws, id, before, after, labels, added, removed; an
-- array of rows, not JSON: a thousand images are copied, not built into one value and parsed again, migration 0034):
-- `labels` the record's label ids now (tasks, projects), `added`/`removed` the label links this change made or undid (a
-- link made and undone in one transaction is no change). A task relation's, link's, attachment's, worklog's, agent
-- session's or activity's event carries its task ids (task_ids: it is in those tasks' histories; a worklog's, its task's
-- ancestors' too); a relation's also the other task's team (other_team_id: a caller, or a webhook bound to teams, sees
-- it only when it reaches both tasks). Its events get the webhook deliveries
-- they match, written only where the workspace has an enabled webhook.
-- Its statements' plans are generic, made once per backend (plan_cache_mode): a custom plan for each call cost more to
-- plan (about 0.8 ms, three calls in a task create with labels) than the statement took to run (docs/performance.md,
-- "Database time of a write"). Nested loops on (enable_nestloop), whoever calls it: its joins are index probes, and
-- pm_record_events, which calls it, turns them off for its own.
CREATE OR REPLACE FUNCTION pm_emit(kind text, action text, changes pm_change[]) RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan SET enable_nestloop = on AS $$
DECLARE
  ctx jsonb := nullif(current_setting('pm.ctx', true), '')::jsonb;
  event_type text := CASE
    WHEN kind <> 'member' THEN kind || '.' || action
    WHEN action = 'created' THEN 'member.joined' WHEN action = 'deleted' THEN 'member.removed' ELSE 'member.updated' END;
  gone text[] := ARRAY[kind || '.deleted', 'member.removed'];
  born text[] := ARRAY[kind || '.created', 'member.joined'];
  base bigint := pm_reserve_positions(cardinality(changes));
BEGIN
  WITH c AS (
    SELECT c.*, coalesce(c.after, c.before) AS image, row_number() OVER () AS rank
    FROM unnest(changes) AS c
    WHERE c.ws IS NOT NULL
  ), placed AS (
    -- The team each record belongs to (webhooks filter by it): its own row's, as it was (a milestone's and a comment's
    -- too, stored with them since 0017: their parent may be gone already in a cascade; a relation's, its source task's);
    -- a task's, project's or cycle's reference.
    SELECT c.*,
      CASE WHEN kind IN ('task', 'project', 'cycle') THEN (SELECT rt.prefix FROM teams rt WHERE rt.id = c.image->>'team_id') END AS prefix,
      CASE kind
        WHEN 'team' THEN c.image->>'id'
        WHEN 'task_relation' THEN c.image->>'source_team_id'
        ELSE c.image->>'team_id' END AS team
    FROM c
  )
  INSERT INTO events AS e (id, workspace_id, xact, position, type, resource_type, resource_id, reference, team_id, owner_id,
        actor_id, via, request_id, old_image, new_image, labels_after, labels_added, labels_removed, task_ids, other_team_id)
    SELECT pm_typeid('evt'), c.ws, base >> 20, base + c.rank, event_type, kind, c.id,
      pm_reference(kind, c.prefix, c.image->>'number'),
      c.team, CASE WHEN kind = 'api_key' THEN c.image->>'user_id' END,
      -- A key made where no caller is known (a login) is by the user it belongs to.
      coalesce(ctx->>'actor', CASE WHEN kind = 'api_key' AND action = 'created' THEN c.image->>'user_id' END),
      ctx->>'via', ctx->>'requestId', c.before, c.after, c.labels,
      coalesce(c.added, '{}'), coalesce(c.removed, '{}'),
      CASE WHEN kind = 'task_relation' THEN ARRAY[c.image->>'source_task_id', c.image->>'target_task_id']
        WHEN kind IN ('attachment', 'link', 'agent_session', 'agent_activity') THEN ARRAY[c.image->>'task_id']
        -- A worklog changes its task's spent time and every ancestor's total: it is in all their histories.
        WHEN kind = 'worklog' THEN ARRAY(WITH RECURSIVE up(id) AS (SELECT c.image->>'task_id'
            UNION SELECT t.parent_id FROM tasks t JOIN up ON t.id = up.id WHERE t.parent_id IS NOT NULL) SELECT id FROM up) END,
      CASE WHEN kind = 'task_relation' THEN c.image->>'target_team_id' END
    FROM placed c
    ON CONFLICT (xact, resource_type, resource_id) DO UPDATE SET
      -- created then changed stays created; anything then deleted is deleted, with the record as it was.
      type = CASE WHEN excluded.type = ANY (gone) THEN excluded.type WHEN e.type = ANY (born) THEN e.type ELSE excluded.type END,
      old_image = CASE WHEN excluded.type = ANY (gone) THEN excluded.old_image WHEN excluded.type = ANY (born) THEN NULL
        ELSE e.old_image END,
      new_image = CASE WHEN excluded.type = ANY (gone) THEN NULL ELSE excluded.new_image END,
      reference = coalesce(excluded.reference, e.reference),
      team_id = coalesce(excluded.team_id, e.team_id),
      labels_after = coalesce(excluded.labels_after, e.labels_after),
      labels_added = ARRAY(
        (SELECT unnest(e.labels_added) EXCEPT SELECT unnest(excluded.labels_removed))
        UNION (SELECT unnest(excluded.labels_added) EXCEPT SELECT unnest(e.labels_removed))),
      labels_removed = ARRAY(
        (SELECT unnest(e.labels_removed) EXCEPT SELECT unnest(excluded.labels_added))
        UNION (SELECT unnest(excluded.labels_removed) EXCEPT SELECT unnest(e.labels_added)));
  -- The deliveries of the events this call wrote or folded into (pm_webhook_takes), only where the workspace has a
  -- webhook: most have none, and then neither table is read beyond one index probe. A fold changes the record, so what
  -- an earlier statement of this transaction queued for it is decided again (still unsent: nothing committed yet).
  IF EXISTS (SELECT 1 FROM webhooks w WHERE w.workspace_id = ANY (ARRAY(SELECT DISTINCT c.ws FROM unnest(changes) c))
      AND w.enabled) THEN
    DELETE FROM webhook_deliveries d USING events e, webhooks w
      WHERE d.created_at = now() AND d.event_id = e.id AND w.id = d.webhook_id
        AND e.xact = base >> 20 AND e.resource_type = kind
        AND e.resource_id IN (SELECT c.id FROM unnest(changes) c)
        AND NOT pm_webhook_takes(w, e);
    INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_id, next_attempt_at)
      SELECT pm_typeid('dlv'), w.workspace_id, w.id, e.id, now()
      FROM events e JOIN webhooks w ON w.workspace_id = e.workspace_id
      WHERE e.xact = base >> 20 AND e.resource_type = kind
        AND e.resource_id IN (SELECT c.id FROM unnest(changes) c)
        AND w.enabled AND pm_webhook_takes(w, e)
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.created_at = now() AND d.webhook_id = w.id AND d.event_id = e.id);
  END IF;
END $$;
