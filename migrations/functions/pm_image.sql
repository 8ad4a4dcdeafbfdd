-- Columns that are bookkeeping, not a change of the record (a key's use, counters, search vectors, timestamps, a cycle's
-- progress frozen at its end).
CREATE OR REPLACE FUNCTION pm_image(row_value anyelement) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT to_jsonb(row_value) - ARRAY['search_vector', 'key_hash', 'token_hash', 'sealed_secret', 'sealed_previous_secret',
    'task_counter', 'project_counter', 'cycle_counter', 'frozen_progress']
$$;
