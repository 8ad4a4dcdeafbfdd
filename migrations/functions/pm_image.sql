-- Columns that are bookkeeping, not a change of the record (a key's use, counters, search vectors, timestamps, a cycle's
-- progress frozen at its end), and secrets: left out of every image. Set to null before the row becomes JSON, so their
-- values are never rendered only to be dropped: a task's search vector is as long as its description, and rendering it
-- took as long as the rest of the row (2 KB of description: 23 → 12 µs an image; docs/performance.md, "30 November,
-- third part").
CREATE OR REPLACE FUNCTION pm_image(row_value anyelement) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT pm_hidden_json(row_value, ARRAY['search_vector', 'key_hash', 'token_hash', 'sealed_secret', 'sealed_previous_secret',
    'task_counter', 'project_counter', 'cycle_counter', 'frozen_progress'])
$$;
