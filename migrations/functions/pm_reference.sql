-- The human name of a record numbered per team (docs/api.md, "Ids and names"): a task `ENG-12`, a project `ENG-P3`, a cycle `ENG-C3`;
-- null for a record of another kind. The one spelling the events (pm_emit) and a rename's events (pm_team_prefix) use.
CREATE OR REPLACE FUNCTION pm_reference(kind text, prefix text, number text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT prefix || CASE kind WHEN 'task' THEN '-' WHEN 'project' THEN '-P' WHEN 'cycle' THEN '-C' END || number
$$;
