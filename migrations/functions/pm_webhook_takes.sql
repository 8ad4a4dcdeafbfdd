-- Whether webhook `w` takes event `e` (docs/webhooks.md): one of its event types, its teams (a relation's both tasks'),
-- its agents (a webhook naming agents gets only the events of their sessions and activities) and its filter
-- (pm_event_filter). The one rule: pm_emit queues deliveries by it, POST /webhooks/{id}/test answers it. False, never
-- null, when it does not take it (an event with no team or agent meets a webhook bound to some): the test reads null as
-- no such event.
CREATE OR REPLACE FUNCTION pm_webhook_takes(w webhooks, e events) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(pm_event_matches(w.events, e.type)
    AND (w.team_ids IS NULL OR (e.team_id = ANY (w.team_ids) AND (e.other_team_id IS NULL OR e.other_team_id = ANY (w.team_ids))))
    AND (w.agent_ids IS NULL OR coalesce(e.new_image, e.old_image)->>'agent_id' = ANY (w.agent_ids))
    AND pm_event_filter(w.filter, e), false)
$$;
