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

-- Records changes of records of one type, all at once (a statement's rows): a new event for each, or the change folded
-- into this transaction's event of the same record. `changes` is a JSON array of {ws, id, before, after, labels?,
-- added?, removed?}: `labels` the record's label ids now (tasks, projects), `added`/`removed` the label links this change
-- made or undid (a link made and undone in one transaction is no change). New events get the webhook deliveries they match.
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
    -- The team each record belongs to (webhooks filter by it) and a task's or project's reference, joined once for all.
    SELECT c.*, rt.prefix,
      CASE kind
        WHEN 'team' THEN c.image->>'id'
        WHEN 'milestone' THEN p.team_id
        WHEN 'comment' THEN coalesce(t.team_id, p.team_id, mp.team_id)
        ELSE c.image->>'team_id' END AS team
    FROM c
      LEFT JOIN teams rt ON kind IN ('task', 'project') AND rt.id = c.image->>'team_id'
      LEFT JOIN tasks t ON kind = 'comment' AND t.id = c.image->>'task_id'
      LEFT JOIN projects p ON kind IN ('comment', 'milestone') AND p.id = c.image->>'project_id'
      LEFT JOIN milestones m ON kind = 'comment' AND m.id = c.image->>'milestone_id'
      LEFT JOIN projects mp ON mp.id = m.project_id
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

-- Columns that are bookkeeping, not a change of the record (a key's use, counters, search vectors, timestamps).
CREATE OR REPLACE FUNCTION pm_image(row_value anyelement) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT to_jsonb(row_value) - ARRAY['search_vector', 'key_hash', 'token_hash', 'sealed_secret', 'sealed_previous_secret',
    'task_counter', 'project_counter']
$$;--> statement-breakpoint

-- A task's or project's label ids now (null for other records).
CREATE OR REPLACE FUNCTION pm_labels_of(kind text, record_id text) RETURNS text[] LANGUAGE sql STABLE AS $$
  SELECT CASE kind
    WHEN 'task' THEN (SELECT coalesce(array_agg(label_id ORDER BY label_id), '{}') FROM task_labels WHERE task_id = record_id)
    WHEN 'project' THEN (SELECT coalesce(array_agg(label_id ORDER BY label_id), '{}') FROM project_labels WHERE project_id = record_id)
  END
$$;--> statement-breakpoint

-- Once per statement, with the rows it inserted, updated or deleted (transition tables): an import of thousands of rows
-- records their events in a few set-based queries, not a few queries per row.
CREATE OR REPLACE FUNCTION pm_record_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind text := TG_ARGV[0];
  bookkeeping constant text[] := ARRAY['updated_at', 'last_used_at', 'failing_since'];
  changes jsonb;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT jsonb_agg(jsonb_build_object('id', a->>'id', 'ws', CASE WHEN kind = 'workspace' THEN a->>'id' ELSE a->>'workspace_id' END,
        'after', a, 'labels', pm_labels_of(kind, a->>'id')))
      INTO changes FROM (SELECT pm_image(n) AS a FROM new_rows n) r;
  ELSIF TG_OP = 'UPDATE' THEN
    -- Foreign-key actions may update a row twice in one statement (a project deleted: its tasks lose their project and
    -- their milestone), and the transition tables then hold both versions: the change is from the version no update
    -- produced to the one no update replaced.
    WITH o AS (SELECT pm_image(x) AS i, to_jsonb(x) AS v FROM old_rows x),
      n AS (SELECT pm_image(x) AS i, to_jsonb(x) AS v FROM new_rows x),
      originals AS (SELECT o.i FROM o WHERE NOT EXISTS (SELECT 1 FROM n WHERE n.v = o.v)),
      finals AS (SELECT n.i FROM n WHERE NOT EXISTS (SELECT 1 FROM o WHERE o.v = n.v))
    SELECT jsonb_agg(jsonb_build_object('id', a->>'id', 'ws', CASE WHEN kind = 'workspace' THEN a->>'id' ELSE a->>'workspace_id' END,
        'before', b, 'after', a, 'labels', pm_labels_of(kind, a->>'id')))
      INTO changes FROM (SELECT originals.i AS b, finals.i AS a FROM originals JOIN finals ON finals.i->>'id' = originals.i->>'id') r
      WHERE (b - bookkeeping) <> (a - bookkeeping);
  ELSE
    SELECT jsonb_agg(jsonb_build_object('id', b->>'id', 'ws', CASE WHEN kind = 'workspace' THEN b->>'id' ELSE b->>'workspace_id' END,
        'before', b))
      INTO changes FROM (SELECT pm_image(o) AS b FROM old_rows o) r;
  END IF;
  IF changes IS NOT NULL THEN
    PERFORM pm_emit(kind, CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END, changes);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint

-- The same for one row, for a row trigger (one whose WHEN leaves out bookkeeping updates).
CREATE OR REPLACE FUNCTION pm_record_row_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pm_emit(TG_ARGV[0], 'updated', jsonb_build_array(jsonb_build_object('id', NEW.id, 'ws', NEW.workspace_id,
    'before', pm_image(OLD), 'after', pm_image(NEW))));
  RETURN NULL;
END $$;--> statement-breakpoint

-- A task's or project's stored row now (null when it is gone).
CREATE OR REPLACE FUNCTION pm_record_image(kind text, record_id text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE kind
    WHEN 'task' THEN (SELECT pm_image(t) FROM tasks t WHERE t.id = record_id)
    WHEN 'project' THEN (SELECT pm_image(p) FROM projects p WHERE p.id = record_id)
  END
$$;--> statement-breakpoint

-- Labels attached to or taken off tasks or projects are changes of those records (`labelIds`), once per statement. A
-- record that is itself going (its links go with it) has its own event.
CREATE OR REPLACE FUNCTION pm_label_link_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  parent text := TG_ARGV[0];
  links jsonb;
  changes jsonb;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT jsonb_agg(to_jsonb(n)) INTO links FROM new_rows n;
  ELSE
    SELECT jsonb_agg(to_jsonb(o)) INTO links FROM old_rows o;
  END IF;
  SELECT jsonb_agg(jsonb_build_object('ws', r.img->>'workspace_id', 'id', r.pid, 'before', r.img, 'after', r.img,
      'labels', pm_labels_of(parent, r.pid), CASE TG_OP WHEN 'INSERT' THEN 'added' ELSE 'removed' END, r.ids))
    INTO changes
    FROM (SELECT l.pid, jsonb_agg(l.label_id) AS ids, pm_record_image(parent, l.pid) AS img
      FROM (SELECT link->>(parent || '_id') AS pid, link->>'label_id' AS label_id FROM jsonb_array_elements(links) link) l
      GROUP BY l.pid) r
    WHERE r.img IS NOT NULL;
  IF changes IS NOT NULL THEN PERFORM pm_emit(parent, 'updated', changes); END IF;
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
  PERFORM pm_emit(CASE WHEN person->>'type' = 'AGENT' THEN 'agent' ELSE 'member' END,
    CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END,
    jsonb_build_array(jsonb_build_object('ws', membership.workspace_id, 'id', membership.user_id,
      'before', CASE WHEN TG_OP <> 'INSERT' THEN coalesce(person, '{}') || jsonb_build_object('id', OLD.user_id, 'role', OLD.role) END,
      'after', CASE WHEN TG_OP <> 'DELETE' THEN coalesce(person, '{}') || jsonb_build_object('id', NEW.user_id, 'role', NEW.role) END)));
  RETURN NULL;
END $$;--> statement-breakpoint

-- A user's name or avatar changed: a change of the member (or agent) in each workspace it belongs to.
CREATE OR REPLACE FUNCTION pm_user_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  membership record;
BEGIN
  IF (to_jsonb(OLD) - 'updated_at') = (to_jsonb(NEW) - 'updated_at') THEN RETURN NULL; END IF;
  FOR membership IN SELECT workspace_id, role FROM workspace_members WHERE user_id = NEW.id LOOP
    PERFORM pm_emit(CASE WHEN NEW.type = 'AGENT' THEN 'agent' ELSE 'member' END, 'updated',
      jsonb_build_array(jsonb_build_object('ws', membership.workspace_id, 'id', NEW.id,
        'before', to_jsonb(OLD) || jsonb_build_object('role', membership.role),
        'after', to_jsonb(NEW) || jsonb_build_object('role', membership.role))));
  END LOOP;
  RETURN NULL;
END $$;--> statement-breakpoint

-- Each tracked table: its inserts, updates and deletes, once per statement (teams' updates: the row trigger below).
DO $$
DECLARE
  tracked record;
BEGIN
  FOR tracked IN SELECT * FROM (VALUES
    ('tasks', 'task'),
    ('projects', 'project'),
    ('milestones', 'milestone'),
    ('comments', 'comment'),
    ('labels', 'label'),
    ('teams', 'team'),
    ('team_members', 'team_member'),
    ('field_definitions', 'field'),
    ('workspaces', 'workspace'),
    ('invites', 'invite'),
    ('api_keys', 'api_key'),
    ('webhooks', 'webhook')) AS t(tbl, kind)
  LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events(%L)',
      tracked.tbl || '_inserted', tracked.tbl, tracked.kind);
    IF tracked.tbl <> 'teams' THEN
      EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events(%L)',
        tracked.tbl || '_updated', tracked.tbl, tracked.kind);
    END IF;
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_record_events(%L)',
      tracked.tbl || '_deleted', tracked.tbl, tracked.kind);
  END LOOP;
END $$;--> statement-breakpoint
-- A task or project created bumps its team's reference counter: that update is no change of the team, and its WHEN
-- keeps the trigger from running at all (a statement trigger cannot have one), inside the lock creates queue on.
CREATE TRIGGER teams_updated AFTER UPDATE ON teams FOR EACH ROW
  WHEN ((to_jsonb(OLD) - ARRAY['task_counter', 'project_counter', 'updated_at']) IS DISTINCT FROM (to_jsonb(NEW) - ARRAY['task_counter', 'project_counter', 'updated_at']))
  EXECUTE FUNCTION pm_record_row_event('team');--> statement-breakpoint
CREATE TRIGGER task_labels_inserted AFTER INSERT ON task_labels REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_label_link_events('task');--> statement-breakpoint
CREATE TRIGGER task_labels_deleted AFTER DELETE ON task_labels REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_label_link_events('task');--> statement-breakpoint
CREATE TRIGGER project_labels_inserted AFTER INSERT ON project_labels REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_label_link_events('project');--> statement-breakpoint
CREATE TRIGGER project_labels_deleted AFTER DELETE ON project_labels REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pm_label_link_events('project');--> statement-breakpoint
CREATE TRIGGER workspace_members_event AFTER INSERT OR UPDATE OR DELETE ON workspace_members FOR EACH ROW EXECUTE FUNCTION pm_member_event();--> statement-breakpoint
CREATE TRIGGER users_event AFTER UPDATE ON users FOR EACH ROW EXECUTE FUNCTION pm_user_event();
