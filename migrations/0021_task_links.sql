CREATE TABLE "task_links" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"team_id" text NOT NULL,
	"task_id" text NOT NULL,
	"url" text NOT NULL,
	"title" text,
	"created_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "task_links" ADD CONSTRAINT "task_links_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_links" ADD CONSTRAINT "task_links_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_links" ADD CONSTRAINT "task_links_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "task_links_url_key" ON "task_links" USING btree ("task_id","url");--> statement-breakpoint
CREATE INDEX "task_links_task_idx" ON "task_links" USING btree ("task_id","created_at","id");--> statement-breakpoint
-- pm_emit as 0020 made it, plus links and attachments: their events (`link.created|deleted`, docs/events.md) carry their
-- task (task_ids), so they are in the task's history.
CREATE OR REPLACE FUNCTION public.pm_emit(kind text, action text, changes jsonb)
 RETURNS void
 LANGUAGE plpgsql
AS $$
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
    -- too, stored with them since 0017: their parent may be gone already in a cascade; a relation's, its source task's);
    -- a task's or project's reference.
    SELECT c.*,
      CASE WHEN kind IN ('task', 'project') THEN (SELECT rt.prefix FROM teams rt WHERE rt.id = c.image->>'team_id') END AS prefix,
      CASE kind
        WHEN 'team' THEN c.image->>'id'
        WHEN 'task_relation' THEN c.image->>'source_team_id'
        ELSE c.image->>'team_id' END AS team
    FROM c
  )
  INSERT INTO events AS e (id, workspace_id, xact, position, type, resource_type, resource_id, reference, team_id, owner_id,
        actor_id, via, request_id, old_image, new_image, labels_after, labels_added, labels_removed, task_ids, other_team_id)
    SELECT pm_typeid('evt'), c.ws, base >> 20, base + c.rank, event_type, kind, c.id,
      c.prefix || CASE kind WHEN 'task' THEN '-' ELSE '-P' END || (c.image->>'number'),
      c.team, CASE WHEN kind = 'api_key' THEN c.image->>'user_id' END,
      -- A key made where no caller is known (a login) is by the user it belongs to.
      coalesce(ctx->>'actor', CASE WHEN kind = 'api_key' AND action = 'created' THEN c.image->>'user_id' END),
      ctx->>'via', ctx->>'requestId', c.before, c.after, c.labels,
      coalesce(c.added, '{}'), coalesce(c.removed, '{}'),
      CASE WHEN kind = 'task_relation' THEN ARRAY[c.image->>'source_task_id', c.image->>'target_task_id']
        WHEN kind IN ('attachment', 'link') THEN ARRAY[c.image->>'task_id'] END,
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
  -- The deliveries of the new events (a fold adds none), only where the workspace has a webhook: most have none, and
  -- then neither table is read beyond one index probe.
  IF EXISTS (SELECT 1 FROM webhooks w WHERE w.workspace_id = ANY (ARRAY(SELECT DISTINCT c->>'ws' FROM jsonb_array_elements(changes) c))
      AND w.enabled) THEN
    INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_id, next_attempt_at)
      SELECT pm_typeid('dlv'), w.workspace_id, w.id, e.id, now()
      FROM events e JOIN webhooks w ON w.workspace_id = e.workspace_id
      WHERE e.xact = base >> 20 AND e.position > base AND e.position <= base + jsonb_array_length(changes)
        AND w.enabled AND pm_event_matches(w.events, e.type)
        AND (w.team_ids IS NULL OR (e.team_id = ANY (w.team_ids)
          AND (e.other_team_id IS NULL OR e.other_team_id = ANY (w.team_ids))));
  END IF;
END $$;--> statement-breakpoint
CREATE TRIGGER task_links_inserted AFTER INSERT ON task_links REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events('link');--> statement-breakpoint
CREATE TRIGGER task_links_deleted AFTER DELETE ON task_links REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events('link');
