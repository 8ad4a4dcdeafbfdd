-- A new team's workflow states (docs/api.md, "Workflow states"): a copy of its parent's, or the six defaults (pm_default_states), written
-- with the team, whichever path creates it (POST /teams, a workspace import); their `state.created` events are the team's
-- write's. An import then brings the document's own states (src/resources/states/transfer.ts).
CREATE OR REPLACE FUNCTION pm_team_states() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.parent_id IS NOT NULL AND EXISTS (SELECT 1 FROM workflow_states WHERE team_id = NEW.parent_id) THEN
    INSERT INTO workflow_states (id, workspace_id, team_id, key, name, category, position, color, description)
      SELECT pm_typeid('sta'), NEW.workspace_id, NEW.id, s.key, s.name, s.category, s.position, s.color, s.description
      FROM workflow_states s WHERE s.team_id = NEW.parent_id ORDER BY s.position, s.id;
  ELSE
    INSERT INTO workflow_states (id, workspace_id, team_id, key, name, category, position, color)
      SELECT pm_typeid('sta'), NEW.workspace_id, NEW.id, d.key, d.name, d.category, d.position, d.color FROM pm_default_states() d;
  END IF;
  RETURN NULL;
END $$;
