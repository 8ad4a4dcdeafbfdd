-- Whether an event's record passes a filter (docs/events.md, "Filters"): GET /events' `filter[...]` and a webhook's
-- `filter`, the list filter syntax as JSON, {<op>: {<field>: value | [values]}}, parsed and checked by the API's list
-- parser, names already resolved to ids. Every term must hold (AND). A field is the record's, as its answer names it
-- (`projectId` is the stored row's `project_id`); `teamId` is the event's team, `labelIds` the record's labels after the
-- change; eq and in hold when the record has one of the values (null: it has none), neq when it has none of them.
-- `changed` names fields an update changed: no event but a `*.updated` passes a term on it.
CREATE OR REPLACE FUNCTION pm_event_filter(filter jsonb, e events) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT filter IS NULL OR NOT EXISTS (
    SELECT 1
    FROM jsonb_each(filter) AS o(op, fields)
    CROSS JOIN LATERAL jsonb_each(o.fields) AS t(field, value)
    CROSS JOIN LATERAL (SELECT CASE t.field
        WHEN 'teamId' THEN ARRAY[e.team_id]
        WHEN 'labelIds' THEN coalesce(e.labels_after, '{}')
        ELSE ARRAY[coalesce(e.new_image, e.old_image) ->> lower(regexp_replace(t.field, '([A-Z])', '_\1', 'g'))] END AS has) AS r
    CROSS JOIN LATERAL (SELECT EXISTS (
        SELECT 1 FROM jsonb_array_elements(CASE jsonb_typeof(t.value) WHEN 'array' THEN t.value ELSE jsonb_build_array(t.value) END) AS v(value)
        WHERE CASE
          WHEN t.field = 'changed' AND v.value #>> '{}' = 'labelIds' THEN
            cardinality(e.labels_added) > 0 OR cardinality(e.labels_removed) > 0
          WHEN t.field = 'changed' THEN
            e.old_image -> lower(regexp_replace(v.value #>> '{}', '([A-Z])', '_\1', 'g'))
              IS DISTINCT FROM e.new_image -> lower(regexp_replace(v.value #>> '{}', '([A-Z])', '_\1', 'g'))
          WHEN v.value = 'null'::jsonb THEN cardinality(r.has) = 0 OR array_position(r.has, NULL) IS NOT NULL
          ELSE v.value #>> '{}' = ANY (r.has) END) AS hit) AS m
    WHERE NOT CASE
      WHEN t.field = 'changed' AND e.type NOT LIKE '%.updated' THEN false
      WHEN o.op = 'neq' THEN NOT m.hit
      ELSE m.hit END)
$$;
