-- A membership: a person's (member.joined/updated/removed) or an agent's (agent.created/updated/deleted). The image is
-- the user with the membership's role. The first member to join in a transaction without a caller (sign-up, an invite
-- redeemed) is its actor.
CREATE OR REPLACE FUNCTION pm_member_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  membership record := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
  person jsonb;
  ctx jsonb := coalesce(nullif(current_setting('pm.ctx', true), '')::jsonb, '{}');
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.role = NEW.role THEN RETURN NULL; END IF;
  SELECT to_jsonb(u) INTO person FROM users u WHERE u.id = membership.user_id;
  IF TG_OP = 'INSERT' AND ctx->>'actor' IS NULL THEN
    PERFORM set_config('pm.ctx', jsonb_set(ctx, '{actor}', to_jsonb(membership.user_id))::text, true);
    UPDATE events SET actor_id = membership.user_id WHERE xact = pg_current_xact_id()::text::bigint AND actor_id IS NULL;
  END IF;
  PERFORM pm_emit(CASE WHEN person->>'type' = 'AGENT' THEN 'agent' ELSE 'member' END,
    CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END,
    ARRAY[ROW(membership.workspace_id, membership.user_id,
      CASE WHEN TG_OP <> 'INSERT' THEN coalesce(person, '{}') || jsonb_build_object('id', OLD.user_id, 'role', OLD.role) END,
      CASE WHEN TG_OP <> 'DELETE' THEN coalesce(person, '{}') || jsonb_build_object('id', NEW.user_id, 'role', NEW.role) END,
      NULL, NULL, NULL)::pm_change]);
  RETURN NULL;
END $$;
