-- A user's name or avatar changed: a change of the member (or agent) in each workspace it belongs to.
CREATE OR REPLACE FUNCTION pm_user_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  membership record;
BEGIN
  IF (to_jsonb(OLD) - 'updated_at') = (to_jsonb(NEW) - 'updated_at') THEN RETURN NULL; END IF;
  FOR membership IN SELECT workspace_id, role FROM workspace_members WHERE user_id = NEW.id LOOP
    PERFORM pm_emit(CASE WHEN NEW.type = 'AGENT' THEN 'agent' ELSE 'member' END, 'updated',
      jsonb_build_array(jsonb_build_object('ws', membership.workspace_id, 'id', NEW.id,
        'before', to_jsonb(OLD) || jsonb_build_object('role', membership.role),
        'after', to_jsonb(NEW) || jsonb_build_object('role', membership.role))));
  END LOOP;
  RETURN NULL;
END $$;
