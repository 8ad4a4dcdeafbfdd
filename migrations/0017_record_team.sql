-- Every event carries the team of its record as it was (issue 28, item 2). A milestone belongs to a team through its
-- project and a comment through what it is on; the event trigger looked the team up through that parent, and in a
-- cascade (a task deleted with its comments, a project with its milestones and theirs) the parent is gone first: the
-- deletes were stored with no team, so a credential bound to another team read them and a webhook filtered to the team
-- never got them. The team is now stored on the row itself (filled from the parent when the row is written; a task's and
-- a project's team never change), so the image the trigger gets has it.

ALTER TABLE "comments" ADD COLUMN "team_id" text DEFAULT null;--> statement-breakpoint
ALTER TABLE "milestones" ADD COLUMN "team_id" text DEFAULT null;--> statement-breakpoint
UPDATE milestones m SET team_id = p.team_id FROM projects p WHERE p.id = m.project_id;--> statement-breakpoint
UPDATE comments c SET team_id = coalesce(
  (SELECT team_id FROM tasks WHERE id = c.task_id),
  (SELECT team_id FROM projects WHERE id = c.project_id),
  (SELECT team_id FROM milestones WHERE id = c.milestone_id));--> statement-breakpoint
ALTER TABLE "comments" ALTER COLUMN "team_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "milestones" ALTER COLUMN "team_id" SET NOT NULL;--> statement-breakpoint

-- The parent's team, for a row written without one (a writer that names it is checked below instead, set-based: the
-- API's inserts and imports name it, so a large import runs no function per row), and on any change of the parent or
-- the team. A parent that is not there is the foreign key's error (23503, a 409 "deleted meanwhile"), not a null team's.
CREATE OR REPLACE FUNCTION pm_record_team() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'milestones' THEN
    NEW.team_id := (SELECT team_id FROM projects WHERE id = NEW.project_id);
  ELSE
    NEW.team_id := coalesce(
      (SELECT team_id FROM tasks WHERE id = NEW.task_id),
      (SELECT team_id FROM projects WHERE id = NEW.project_id),
      (SELECT team_id FROM milestones WHERE id = NEW.milestone_id));
  END IF;
  IF NEW.team_id IS NULL THEN
    RAISE foreign_key_violation USING MESSAGE = format('%s %s: the record it belongs to does not exist', TG_TABLE_NAME, NEW.id);
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER milestones_team BEFORE INSERT ON milestones
  FOR EACH ROW WHEN (NEW.team_id IS NULL) EXECUTE FUNCTION pm_record_team();--> statement-breakpoint
CREATE TRIGGER milestones_team_moved BEFORE UPDATE OF project_id, team_id ON milestones
  FOR EACH ROW EXECUTE FUNCTION pm_record_team();--> statement-breakpoint
CREATE TRIGGER comments_team BEFORE INSERT ON comments
  FOR EACH ROW WHEN (NEW.team_id IS NULL) EXECUTE FUNCTION pm_record_team();--> statement-breakpoint
CREATE TRIGGER comments_team_moved BEFORE UPDATE OF task_id, project_id, milestone_id, team_id ON comments
  FOR EACH ROW EXECUTE FUNCTION pm_record_team();--> statement-breakpoint

-- A team named by the writer is its parent's, checked once per statement over its rows (a parent that is gone already
-- failed its foreign key, whose check comes first).
CREATE OR REPLACE FUNCTION pm_check_record_team() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  wrong text;
BEGIN
  IF TG_TABLE_NAME = 'milestones' THEN
    SELECT n.id INTO wrong FROM new_rows n LEFT JOIN projects p ON p.id = n.project_id
      WHERE p.team_id IS DISTINCT FROM n.team_id LIMIT 1;
  ELSE
    SELECT n.id INTO wrong FROM new_rows n
      LEFT JOIN tasks t ON t.id = n.task_id LEFT JOIN projects p ON p.id = n.project_id LEFT JOIN milestones m ON m.id = n.milestone_id
      WHERE coalesce(t.team_id, p.team_id, m.team_id) IS DISTINCT FROM n.team_id LIMIT 1;
  END IF;
  IF wrong IS NOT NULL THEN
    RAISE foreign_key_violation USING MESSAGE = format('%s %s: its team is not the team of the record it belongs to', TG_TABLE_NAME, wrong);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER milestones_team_checked AFTER INSERT ON milestones REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION pm_check_record_team();--> statement-breakpoint
CREATE TRIGGER comments_team_checked AFTER INSERT ON comments REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION pm_check_record_team();--> statement-breakpoint

-- pm_emit as 0011 made it, reading every record's team from its own image.
CREATE OR REPLACE FUNCTION pm_emit(kind text, action text, changes jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  ctx jsonb := nullif(current_setting('pm.ctx', true), '')::jsonb;
  event_type text := CASE
    WHEN kind <> 'member' THEN kind || '.' || action
    WHEN action = 'created' THEN 'member.joined' WHEN action = 'deleted' THEN 'member.removed' ELSE 'member.updated' END;
  gone text[] := ARRAY[kind || '.deleted', 'member.removed'];
  born text[] := ARRAY[kind || '.created', 'member.joined'];
  base bigint := pm_reserve_positions(jsonb_array_length(changes));
BEGIN
  WITH c AS (
    SELECT c.*, coalesce(c.after, c.before) AS image, row_number() OVER () AS rank
    FROM jsonb_to_recordset(changes) AS c(ws text, id text, before jsonb, after jsonb, labels text[], added text[], removed text[])
    WHERE c.ws IS NOT NULL
  ), placed AS (
    -- The team each record belongs to (webhooks filter by it): its own row's, as it was (a milestone's and a comment's
    -- too, stored with them: their parent may be gone already in a cascade); a task's or project's reference.
    SELECT c.*, rt.prefix, CASE kind WHEN 'team' THEN c.image->>'id' ELSE c.image->>'team_id' END AS team
    FROM c
      LEFT JOIN teams rt ON kind IN ('task', 'project') AND rt.id = c.image->>'team_id'
  ), written AS (
    INSERT INTO events AS e (id, workspace_id, xact, position, type, resource_type, resource_id, reference, team_id, owner_id,
        actor_id, via, request_id, old_image, new_image, labels_after, labels_added, labels_removed)
    SELECT pm_typeid('evt'), c.ws, base >> 20, base + c.rank, event_type, kind, c.id,
      c.prefix || CASE kind WHEN 'task' THEN '-' ELSE '-P' END || (c.image->>'number'),
      c.team, CASE WHEN kind = 'api_key' THEN c.image->>'user_id' END,
      -- A key made where no caller is known (a login) is by the user it belongs to.
      coalesce(ctx->>'actor', CASE WHEN kind = 'api_key' AND action = 'created' THEN c.image->>'user_id' END),
      ctx->>'via', ctx->>'requestId', c.before, c.after, c.labels,
      coalesce(c.added, '{}'), coalesce(c.removed, '{}')
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
        UNION (SELECT unnest(excluded.labels_removed) EXCEPT SELECT unnest(e.labels_added)))
    RETURNING e.id, e.workspace_id, e.type, e.team_id, (e.xmax = 0) AS inserted
  )
  INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_id, next_attempt_at)
    SELECT pm_typeid('dlv'), w.workspace_id, w.id, written.id, now()
    FROM written JOIN webhooks w ON w.workspace_id = written.workspace_id
    WHERE written.inserted AND w.enabled AND pm_event_matches(w.events, written.type)
      AND (w.team_ids IS NULL OR written.team_id = ANY (w.team_ids));
END $$;--> statement-breakpoint

-- Events already stored without a team (milestones and comments deleted in a cascade): the team of an earlier event of
-- the same record, else of its parent's events.
UPDATE events e SET team_id = coalesce(
  (SELECT o.team_id FROM events o WHERE o.resource_id = e.resource_id AND o.team_id IS NOT NULL LIMIT 1),
  (SELECT o.team_id FROM events o WHERE o.team_id IS NOT NULL AND o.resource_id IN
    (e.old_image->>'task_id', e.old_image->>'project_id', e.old_image->>'milestone_id') LIMIT 1))
WHERE e.team_id IS NULL AND e.resource_type IN ('comment', 'milestone');
