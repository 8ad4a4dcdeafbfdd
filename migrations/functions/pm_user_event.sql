-- A user's name or avatar changed: a change of the member (or agent) in each workspace it belongs to.
CREATE OR REPLACE FUNCTION pm_user_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  membership record;
BEGIN
  IF (to_jsonb(OLD) - 'updated_at') = (to_jsonb(NEW) - 'updated_at') THEN RETURN NULL; END IF;
  FOR membership IN SELECT workspace_id, role FROM workspace_members WHERE user_id = NEW.id LOOP
    PERFORM pm_emit(CASE WHEN NEW.type = 'AGENT' THEN 'agent' ELSE 'member' END, 'updated',
      ARRAY[ROW(membership.workspace_id, NEW.id, to_jsonb(OLD) || jsonb_build_object('role', membership.role),
        to_jsonb(NEW) || jsonb_build_object('role', membership.role), NULL, NULL, NULL)::pm_change]);
  END LOOP;
  RETURN NULL;
END $$;
