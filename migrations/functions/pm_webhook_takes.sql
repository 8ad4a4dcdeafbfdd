-- Whether webhook `w` takes event `e` (docs/webhooks.md): one of its event types, its teams (a relation's both tasks'),
-- and its filter (pm_event_filter). The one rule: pm_emit queues deliveries by it, POST /webhooks/{id}/test answers it.
CREATE OR REPLACE FUNCTION pm_webhook_takes(w webhooks, e events) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT pm_event_matches(w.events, e.type)
    AND (w.team_ids IS NULL OR (e.team_id = ANY (w.team_ids) AND (e.other_team_id IS NULL OR e.other_team_id = ANY (w.team_ids))))
    AND pm_event_filter(w.filter, e)
$$;
