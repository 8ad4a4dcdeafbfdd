-- `row_value` as JSON without the columns `hidden` names (pm_image's): they are nulled first (a key the row's type lacks
-- is ignored), then dropped. Inlined into its caller with `hidden` a constant, so the null object is made once per plan.
CREATE OR REPLACE FUNCTION pm_hidden_json(row_value anyelement, hidden text[]) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT to_jsonb(jsonb_populate_record(row_value, jsonb_object(hidden, array_fill(NULL::text, ARRAY[cardinality(hidden)])))) - hidden
$$;
