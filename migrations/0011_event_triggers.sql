-- The change feed's one source (docs/events.md): triggers on every tracked table write the event of each change in the
-- statement and transaction of the change, whichever code path made it. A change folds into the transaction's event of
-- the same record (created then updated is one `created`), so an operation is one event per record it changes. Who
-- did it comes from the transaction's `pm.ctx` setting (actor, via, requestId), which the API sets in the statement
-- that writes (src/db/event-context.ts).

-- A UUIDv7 (time-ordered), as ids are: 48 bits of Unix milliseconds, version 7, random bits.
CREATE OR REPLACE FUNCTION pm_uuidv7() RETURNS uuid LANGUAGE sql VOLATILE AS $$
  SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
    PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
    52, 1), 53, 1), 'hex')::uuid
$$;--> statement-breakpoint

-- `<prefix>_<26 chars>`: the TypeID of a new UUIDv7 (Crockford base32 of its 128 bits after two zero bits), as src/ids.ts makes.
CREATE OR REPLACE FUNCTION pm_typeid(prefix text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  bits bit(130) := B'00' || ('x' || encode(uuid_send(pm_uuidv7()), 'hex'))::bit(128);
  alphabet constant text := '0123456789abcdefghjkmnpqrstvwxyz';
  encoded text := '';
BEGIN
  FOR i IN 0..25 LOOP
    encoded := encoded || substr(alphabet, substring(bits FROM i * 5 + 1 FOR 5)::int + 1, 1);
  END LOOP;
  RETURN prefix || '_' || encoded;
END $$;--> statement-breakpoint

-- The next position of this transaction: its id (xid8) shifted 20 bits, plus the event's rank in it.
CREATE OR REPLACE FUNCTION pm_next_position() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  rank int := coalesce(nullif(current_setting('pm.seq', true), '')::int, 0) + 1;
BEGIN
  IF rank >= 1048576 THEN
    RAISE EXCEPTION 'more than 1048575 changes in one transaction' USING ERRCODE = '54000';
  END IF;
  PERFORM set_config('pm.seq', rank::text, true);
  RETURN (pg_current_xact_id()::text::bigint << 20) | rank;
END $$;--> statement-breakpoint

-- Positions below this are final: every transaction that could still add one has a larger id.
CREATE OR REPLACE FUNCTION pm_stable_position() RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 20
$$;--> statement-breakpoint

-- Whether a webhook's patterns (`task.created`, `task.*`, `*`) take an event type.
CREATE OR REPLACE FUNCTION pm_event_matches(patterns text[], event_type text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT EXISTS (SELECT 1 FROM unnest(patterns) p
    WHERE p = '*' OR p = event_type OR (right(p, 2) = '.*' AND starts_with(event_type, left(p, -1))))
$$;--> statement-breakpoint

-- The team an event belongs to (webhook team filters), from the record's image.
CREATE OR REPLACE FUNCTION pm_event_team(resource_type text, image jsonb) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT CASE resource_type
    WHEN 'team' THEN image->>'id'
    WHEN 'task' THEN image->>'team_id'
    WHEN 'project' THEN image->>'team_id'
    WHEN 'team_member' THEN image->>'team_id'
    WHEN 'milestone' THEN (SELECT team_id FROM projects WHERE id = image->>'project_id')
    WHEN 'comment' THEN coalesce(
      (SELECT team_id FROM tasks WHERE id = image->>'task_id'),
      (SELECT team_id FROM projects WHERE id = image->>'project_id'),
      (SELECT p.team_id FROM milestones m JOIN projects p ON p.id = m.project_id WHERE m.id = image->>'milestone_id'))
  END
$$;--> statement-breakpoint

-- Records one change: a new event, or the change folded into this transaction's event of the same record. `labels`:
-- the record's label ids now (tasks, projects); `added`/`removed`: a label link that this change made or undid.
CREATE OR REPLACE FUNCTION pm_emit(
  ws text, kind text, action text, record_id text, before jsonb, after jsonb,
  labels text[] DEFAULT NULL, added text DEFAULT NULL, removed text DEFAULT NULL
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  ctx jsonb := nullif(current_setting('pm.ctx', true), '')::jsonb;
  tx bigint := pg_current_xact_id()::text::bigint;
  event_type text := kind || '.' || action;
  image jsonb := coalesce(after, before);
  event_id text;
  is_new boolean;
  ref text;
BEGIN
  IF ws IS NULL THEN RETURN; END IF;
  IF kind = 'member' THEN
    event_type := CASE action WHEN 'created' THEN 'member.joined' WHEN 'deleted' THEN 'member.removed' ELSE 'member.updated' END;
  END IF;
  IF kind IN ('task', 'project') THEN
    SELECT prefix || CASE kind WHEN 'task' THEN '-' ELSE '-P' END || (image->>'number')
      INTO ref FROM teams WHERE id = image->>'team_id';
  END IF;
  INSERT INTO events AS e (id, workspace_id, xact, position, type, resource_type, resource_id, reference, team_id, owner_id,
      actor_id, via, request_id, old_image, new_image, labels_after, labels_added, labels_removed)
    VALUES (pm_typeid('evt'), ws, tx, pm_next_position(), event_type, kind, record_id, ref,
      pm_event_team(kind, image), CASE WHEN kind = 'api_key' THEN image->>'user_id' END,
      -- A key made where no caller is known (a login) is by the user it belongs to.
      coalesce(ctx->>'actor', CASE WHEN kind = 'api_key' AND action = 'created' THEN image->>'user_id' END),
      ctx->>'via', ctx->>'requestId', before, after, labels,
      CASE WHEN added IS NULL THEN '{}' ELSE ARRAY[added] END, CASE WHEN removed IS NULL THEN '{}' ELSE ARRAY[removed] END)
  ON CONFLICT (xact, resource_type, resource_id) DO UPDATE SET
    -- created then changed stays created; anything then deleted is deleted, with the record as it was.
    type = CASE WHEN excluded.type IN (kind || '.deleted', 'member.removed') THEN excluded.type
      WHEN e.type IN (kind || '.created', 'member.joined') THEN e.type ELSE excluded.type END,
    old_image = CASE WHEN excluded.type IN (kind || '.deleted', 'member.removed') THEN excluded.old_image ELSE e.old_image END,
    new_image = CASE WHEN action = 'deleted' THEN NULL ELSE excluded.new_image END,
    reference = coalesce(excluded.reference, e.reference),
    team_id = coalesce(excluded.team_id, e.team_id),
    labels_after = coalesce(excluded.labels_after, e.labels_after),
    labels_added = CASE
      WHEN added IS NOT NULL AND added = ANY (e.labels_removed) THEN e.labels_added
      WHEN added IS NOT NULL THEN array_append(e.labels_added, added)
      WHEN removed IS NOT NULL THEN array_remove(e.labels_added, removed)
      ELSE e.labels_added END,
    labels_removed = CASE
      WHEN removed IS NOT NULL AND removed = ANY (e.labels_added) THEN e.labels_removed
      WHEN removed IS NOT NULL THEN array_append(e.labels_removed, removed)
      WHEN added IS NOT NULL THEN array_remove(e.labels_removed, added)
      ELSE e.labels_removed END
  RETURNING e.id, (e.xmax = 0) INTO event_id, is_new;
  IF is_new THEN
    INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_id, next_attempt_at)
      SELECT pm_typeid('dlv'), ws, w.id, event_id, now() FROM webhooks w
      WHERE w.workspace_id = ws AND w.enabled AND pm_event_matches(w.events, event_type)
        AND (w.team_ids IS NULL OR pm_event_team(kind, image) = ANY (w.team_ids));
  END IF;
END $$;--> statement-breakpoint

-- Columns that are bookkeeping, not a change of the record (a key's use, counters, search vectors, timestamps).
CREATE OR REPLACE FUNCTION pm_image(row_value anyelement) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT to_jsonb(row_value) - ARRAY['search_vector', 'key_hash', 'token_hash', 'sealed_secret', 'sealed_previous_secret',
    'task_counter', 'project_counter']
$$;--> statement-breakpoint

CREATE OR REPLACE FUNCTION pm_record_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  resource_type text := TG_ARGV[0];
  old_image jsonb := CASE WHEN TG_OP <> 'INSERT' THEN pm_image(OLD) END;
  new_image jsonb := CASE WHEN TG_OP <> 'DELETE' THEN pm_image(NEW) END;
  image jsonb := coalesce(new_image, old_image);
  bookkeeping constant text[] := ARRAY['updated_at', 'last_used_at', 'failing_since'];
  labels text[];
BEGIN
  IF TG_OP = 'UPDATE' AND (old_image - bookkeeping) = (new_image - bookkeeping) THEN RETURN NULL; END IF;
  IF TG_OP <> 'DELETE' AND resource_type = 'task' THEN
    SELECT coalesce(array_agg(label_id ORDER BY label_id), '{}') INTO labels FROM task_labels WHERE task_id = NEW.id;
  ELSIF TG_OP <> 'DELETE' AND resource_type = 'project' THEN
    SELECT coalesce(array_agg(label_id ORDER BY label_id), '{}') INTO labels FROM project_labels WHERE project_id = NEW.id;
  END IF;
  PERFORM pm_emit(CASE WHEN resource_type = 'workspace' THEN image->>'id' ELSE image->>'workspace_id' END, resource_type,
    CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END, image->>'id',
    old_image, new_image, labels);
  RETURN NULL;
END $$;--> statement-breakpoint

-- A label attached to or taken off a task or project is a change of that record (`labelIds`).
CREATE OR REPLACE FUNCTION pm_label_link_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  parent text := TG_ARGV[0];
  link jsonb := to_jsonb(CASE WHEN TG_OP = 'INSERT' THEN NEW ELSE OLD END);
  linked text := link->>(parent || '_id');
  image jsonb;
  labels text[];
BEGIN
  IF parent = 'task' THEN
    SELECT pm_image(t) INTO image FROM tasks t WHERE t.id = linked;
    SELECT coalesce(array_agg(label_id ORDER BY label_id), '{}') INTO labels FROM task_labels WHERE task_id = linked;
  ELSE
    SELECT pm_image(p) INTO image FROM projects p WHERE p.id = linked;
    SELECT coalesce(array_agg(label_id ORDER BY label_id), '{}') INTO labels FROM project_labels WHERE project_id = linked;
  END IF;
  -- The record itself is going (its links go with it): its own event says so.
  IF image IS NULL THEN RETURN NULL; END IF;
  PERFORM pm_emit(image->>'workspace_id', parent, 'updated', linked, image, image, labels,
    CASE WHEN TG_OP = 'INSERT' THEN link->>'label_id' END, CASE WHEN TG_OP = 'DELETE' THEN link->>'label_id' END);
  RETURN NULL;
END $$;--> statement-breakpoint

-- A membership: a person's (member.joined/updated/removed) or an agent's (agent.created/updated/deleted). The image is
-- the user with the membership's role. The first member to join in a transaction without a caller (sign-up, an invite
-- redeemed) is its actor.
CREATE OR REPLACE FUNCTION pm_member_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  membership record := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
  person jsonb;
  ctx jsonb := coalesce(nullif(current_setting('pm.ctx', true), '')::jsonb, '{}');
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.role = NEW.role THEN RETURN NULL; END IF;
  SELECT to_jsonb(u) INTO person FROM users u WHERE u.id = membership.user_id;
  IF TG_OP = 'INSERT' AND ctx->>'actor' IS NULL THEN
    PERFORM set_config('pm.ctx', jsonb_set(ctx, '{actor}', to_jsonb(membership.user_id))::text, true);
    UPDATE events SET actor_id = membership.user_id WHERE xact = pg_current_xact_id()::text::bigint AND actor_id IS NULL;
  END IF;
  PERFORM pm_emit(membership.workspace_id,
    CASE WHEN person->>'type' = 'AGENT' THEN 'agent' ELSE 'member' END,
    CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END, membership.user_id,
    CASE WHEN TG_OP <> 'INSERT' THEN coalesce(person, '{}') || jsonb_build_object('id', OLD.user_id, 'role', OLD.role) END,
    CASE WHEN TG_OP <> 'DELETE' THEN coalesce(person, '{}') || jsonb_build_object('id', NEW.user_id, 'role', NEW.role) END);
  RETURN NULL;
END $$;--> statement-breakpoint

-- A user's name or avatar changed: a change of the member (or agent) in each workspace it belongs to.
CREATE OR REPLACE FUNCTION pm_user_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  membership record;
BEGIN
  IF (to_jsonb(OLD) - 'updated_at') = (to_jsonb(NEW) - 'updated_at') THEN RETURN NULL; END IF;
  FOR membership IN SELECT workspace_id, role FROM workspace_members WHERE user_id = NEW.id LOOP
    PERFORM pm_emit(membership.workspace_id, CASE WHEN NEW.type = 'AGENT' THEN 'agent' ELSE 'member' END, 'updated', NEW.id,
      to_jsonb(OLD) || jsonb_build_object('role', membership.role), to_jsonb(NEW) || jsonb_build_object('role', membership.role));
  END LOOP;
  RETURN NULL;
END $$;--> statement-breakpoint

CREATE TRIGGER tasks_event AFTER INSERT OR UPDATE OR DELETE ON tasks FOR EACH ROW EXECUTE FUNCTION pm_record_event('task');--> statement-breakpoint
CREATE TRIGGER projects_event AFTER INSERT OR UPDATE OR DELETE ON projects FOR EACH ROW EXECUTE FUNCTION pm_record_event('project');--> statement-breakpoint
CREATE TRIGGER milestones_event AFTER INSERT OR UPDATE OR DELETE ON milestones FOR EACH ROW EXECUTE FUNCTION pm_record_event('milestone');--> statement-breakpoint
CREATE TRIGGER comments_event AFTER INSERT OR UPDATE OR DELETE ON comments FOR EACH ROW EXECUTE FUNCTION pm_record_event('comment');--> statement-breakpoint
CREATE TRIGGER labels_event AFTER INSERT OR UPDATE OR DELETE ON labels FOR EACH ROW EXECUTE FUNCTION pm_record_event('label');--> statement-breakpoint
CREATE TRIGGER teams_event AFTER INSERT OR UPDATE OR DELETE ON teams FOR EACH ROW EXECUTE FUNCTION pm_record_event('team');--> statement-breakpoint
CREATE TRIGGER team_members_event AFTER INSERT OR UPDATE OR DELETE ON team_members FOR EACH ROW EXECUTE FUNCTION pm_record_event('team_member');--> statement-breakpoint
CREATE TRIGGER field_definitions_event AFTER INSERT OR UPDATE OR DELETE ON field_definitions FOR EACH ROW EXECUTE FUNCTION pm_record_event('field');--> statement-breakpoint
CREATE TRIGGER workspaces_event AFTER INSERT OR UPDATE OR DELETE ON workspaces FOR EACH ROW EXECUTE FUNCTION pm_record_event('workspace');--> statement-breakpoint
CREATE TRIGGER invites_event AFTER INSERT OR UPDATE OR DELETE ON invites FOR EACH ROW EXECUTE FUNCTION pm_record_event('invite');--> statement-breakpoint
CREATE TRIGGER api_keys_event AFTER INSERT OR UPDATE OR DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION pm_record_event('api_key');--> statement-breakpoint
CREATE TRIGGER webhooks_event AFTER INSERT OR UPDATE OR DELETE ON webhooks FOR EACH ROW EXECUTE FUNCTION pm_record_event('webhook');--> statement-breakpoint
CREATE TRIGGER task_labels_event AFTER INSERT OR DELETE ON task_labels FOR EACH ROW EXECUTE FUNCTION pm_label_link_event('task');--> statement-breakpoint
CREATE TRIGGER project_labels_event AFTER INSERT OR DELETE ON project_labels FOR EACH ROW EXECUTE FUNCTION pm_label_link_event('project');--> statement-breakpoint
CREATE TRIGGER workspace_members_event AFTER INSERT OR UPDATE OR DELETE ON workspace_members FOR EACH ROW EXECUTE FUNCTION pm_member_event();--> statement-breakpoint
CREATE TRIGGER users_event AFTER UPDATE ON users FOR EACH ROW EXECUTE FUNCTION pm_user_event();
