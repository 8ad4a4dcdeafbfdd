-- The inbox (docs/api.md, "Inbox"), written by the triggers of the task or comment write that causes it,
-- in its transaction. The statement that writes a description or a comment hands in the handles its Markdown mentions
-- (the setting `pm.mentions`: {sha256 of the text: [handles]}, made by src/records/mentions.ts), so a text written
-- without them (an import) mentions no one. From `changes` ([{before, after}] rows of `kind` task or comment):
--   mentioned (a member named by a handle new to the text: a mention already notified does not notify again),
--   assigned (became assignee), delegated (the agent), commented (a new comment on a task they follow), status_changed
--   (a followed task's status); one per recipient and write (the first of that order), never to the writer, only to
--   members of the workspace. Followers: see task_subscriptions; a mention follows again after an unsubscribe.
-- An email for each notification its recipient wants (notification_email), through the outbox. An agent mentioned in a
-- comment is prompted with it: its open session on the task gets a `prompt` activity, or a new session opens.
-- Generic plans, made once per backend (plan_cache_mode), and nested loops on whoever calls it: see pm_emit.
CREATE OR REPLACE FUNCTION pm_notify(kind text, changes jsonb) RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan SET enable_nestloop = on AS $$
DECLARE
  ctx jsonb := nullif(current_setting('pm.ctx', true), '')::jsonb;
  actor text := ctx->>'actor';
  handed jsonb := coalesce(nullif(current_setting('pm.mentions', true), '')::jsonb, '{}');
  writes jsonb;
BEGIN
  IF changes IS NULL THEN RETURN; END IF;
  -- Each write about a task: the task, the comment, the text and who it newly mentions, and the event it made.
  SELECT jsonb_agg(w) INTO writes FROM (
    SELECT w.*,
      (SELECT e.id FROM events e WHERE e.xact = pg_current_xact_id()::text::bigint AND e.resource_type = kind
        AND e.resource_id = coalesce(w.comment_id, w.task_id)) AS event_id,
      ARRAY(SELECT DISTINCT u.id FROM jsonb_array_elements_text(CASE WHEN w.before IS NULL OR w.body IS DISTINCT FROM w.old_body
          THEN handed->encode(sha256(convert_to(w.body, 'UTF8')), 'hex') END) h(handle)
        JOIN users u ON u.handle = lower(h.handle)
        JOIN workspace_members m ON m.workspace_id = w.ws AND m.user_id = u.id
        WHERE NOT EXISTS (SELECT 1 FROM notifications x WHERE x.type = 'mentioned' AND x.task_id = w.task_id AND x.user_id = u.id
          AND x.comment_id IS NOT DISTINCT FROM w.comment_id)) AS mentioned
    FROM (
      SELECT c->'before' AS before, c->'after' AS after,
        CASE kind WHEN 'task' THEN c->'after'->>'id' ELSE c->'after'->>'task_id' END AS task_id,
        CASE kind WHEN 'comment' THEN c->'after'->>'id' END AS comment_id,
        c->'after'->>'workspace_id' AS ws, c->'after'->>'team_id' AS team,
        CASE kind WHEN 'task' THEN c->'after'->>'description' ELSE c->'after'->>'content' END AS body,
        CASE kind WHEN 'task' THEN c->'before'->>'description' ELSE c->'before'->>'content' END AS old_body
      FROM jsonb_array_elements(changes) c
      WHERE kind = 'task' OR c->'after'->>'task_id' IS NOT NULL
    ) w
  ) w;
  IF writes IS NULL THEN RETURN; END IF;

  WITH w AS (
    SELECT * FROM jsonb_to_recordset(writes) AS w(before jsonb, after jsonb, task_id text, comment_id text, ws text, team text,
      event_id text, mentioned text[])
  ), candidates AS (
    SELECT w.*, m AS user_id, 'mentioned' AS type, 1 AS rank FROM w, unnest(w.mentioned) m
    UNION ALL SELECT w.*, w.after->>'assignee_id', 'assigned', 2 FROM w
      WHERE kind = 'task' AND w.after->>'assignee_id' IS DISTINCT FROM w.before->>'assignee_id'
    UNION ALL SELECT w.*, w.after->>'delegate_id', 'delegated', 3 FROM w
      WHERE kind = 'task' AND w.after->>'delegate_id' IS DISTINCT FROM w.before->>'delegate_id'
    UNION ALL SELECT w.*, s.user_id, 'commented', 4 FROM w JOIN task_subscriptions s ON s.task_id = w.task_id AND s.subscribed
      WHERE kind = 'comment' AND w.before IS NULL
    UNION ALL SELECT w.*, s.user_id, 'status_changed', 5 FROM w JOIN task_subscriptions s ON s.task_id = w.task_id AND s.subscribed
      WHERE kind = 'task' AND w.before IS NOT NULL AND w.after->>'status' IS DISTINCT FROM w.before->>'status'
  ), chosen AS (
    SELECT DISTINCT ON (c.task_id, c.user_id) c.* FROM candidates c
    WHERE c.user_id IS NOT NULL AND c.user_id IS DISTINCT FROM actor
      AND EXISTS (SELECT 1 FROM workspace_members m WHERE m.workspace_id = c.ws AND m.user_id = c.user_id)
    ORDER BY c.task_id, c.user_id, c.rank
  ), written AS (
    INSERT INTO notifications (id, workspace_id, user_id, type, task_id, team_id, comment_id, actor_id, event_id)
    SELECT pm_typeid('ntf'), c.ws, c.user_id, c.type::notification_type, c.task_id, c.team, c.comment_id, actor, c.event_id
    FROM chosen c
    RETURNING id, user_id, type
  )
  INSERT INTO email_outbox (id, notification_id, expires_at, relay_after)
  SELECT pm_typeid('mail'), n.id, now() + interval '7 days', now()
  FROM written n JOIN users u ON u.id = n.user_id
  WHERE u.type = 'HUMAN' AND (u.notification_email = 'all' OR (u.notification_email = 'mentions' AND n.type = 'mentioned'));

  -- Followers: the creator, the new assignee and delegate, the commenter (an unsubscribe of theirs stays), and whoever
  -- is mentioned (following again).
  INSERT INTO task_subscriptions AS s (task_id, user_id, workspace_id)
  SELECT DISTINCT w.task_id, f.user_id, w.ws
  FROM jsonb_to_recordset(writes) AS w(before jsonb, after jsonb, task_id text, ws text)
  CROSS JOIN LATERAL (VALUES
    (CASE WHEN w.before IS NULL THEN w.after->>CASE kind WHEN 'task' THEN 'creator_id' ELSE 'author_id' END END),
    (CASE WHEN kind = 'task' AND w.after->>'assignee_id' IS DISTINCT FROM w.before->>'assignee_id' THEN w.after->>'assignee_id' END),
    (CASE WHEN kind = 'task' AND w.after->>'delegate_id' IS DISTINCT FROM w.before->>'delegate_id' THEN w.after->>'delegate_id' END)
  ) f(user_id)
  WHERE f.user_id IS NOT NULL
  ON CONFLICT (task_id, user_id) DO NOTHING;
  INSERT INTO task_subscriptions AS s (task_id, user_id, workspace_id)
  SELECT DISTINCT w.task_id, m, w.ws FROM jsonb_to_recordset(writes) AS w(task_id text, ws text, mentioned text[]), unnest(w.mentioned) m
  WHERE m IS DISTINCT FROM actor
  ON CONFLICT (task_id, user_id) DO UPDATE SET subscribed = true;

  IF kind = 'comment' THEN
    -- Mentioned agents, prompted with the comment: their open session on the task, or a new one.
    WITH agents AS (
      SELECT DISTINCT w.task_id, w.team, w.ws, w.after->>'content' AS body, u.id AS agent_id
      FROM jsonb_to_recordset(writes) AS w(after jsonb, task_id text, team text, ws text, mentioned text[])
      JOIN users u ON u.id = ANY (w.mentioned) AND u.type = 'AGENT'
      WHERE u.id IS DISTINCT FROM actor
    ), opened AS (
      INSERT INTO agent_sessions (id, workspace_id, team_id, task_id, agent_id, created_by)
      SELECT pm_typeid('ses'), a.ws, a.team, a.task_id, a.agent_id, actor FROM agents a
      ON CONFLICT (task_id, agent_id) WHERE state IN ('pending', 'active', 'awaiting_input') DO NOTHING
      RETURNING id, task_id, agent_id
    ), sessions AS (
      SELECT a.*, coalesce(o.id, (SELECT s.id FROM agent_sessions s WHERE s.task_id = a.task_id AND s.agent_id = a.agent_id
        AND s.state IN ('pending', 'active', 'awaiting_input'))) AS session_id
      FROM agents a LEFT JOIN opened o ON o.task_id = a.task_id AND o.agent_id = a.agent_id
    ), prompted AS (
      INSERT INTO agent_activities (id, workspace_id, team_id, session_id, task_id, agent_id, type, body, created_by)
      SELECT pm_typeid('act'), s.ws, s.team, s.session_id, s.task_id, s.agent_id, 'prompt', s.body, actor FROM sessions s
      WHERE s.session_id IS NOT NULL
      RETURNING session_id
    )
    UPDATE agent_sessions SET state = 'pending', last_activity_at = now(), updated_at = now()
    WHERE id IN (SELECT session_id FROM prompted);
  END IF;
END $$;
