-- Whether a webhook's patterns (`task.created`, `task.*`, `*`) take an event type.
CREATE OR REPLACE FUNCTION pm_event_matches(patterns text[], event_type text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT EXISTS (SELECT 1 FROM unnest(patterns) p
    WHERE p = '*' OR p = event_type OR (right(p, 2) = '.*' AND starts_with(event_type, left(p, -1))))
$$;
