-- A new user's handle (docs/api.md, "Inbox"), when the insert names none: from the name, else the email's local part, else
-- `user`, lower-cased with every run of other characters a `-`, and a number added while it is taken (`ann`, `ann2`).
-- Every path that makes a user (sign-up, an invite's redemption, POST /agents, an import) gets one. Inserts of the same
-- base wait for each other (an advisory lock until commit), so two sign-ups of one name never collide.
CREATE OR REPLACE FUNCTION pm_user_handle() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  base text := coalesce(
    nullif(left(trim(BOTH '-' FROM regexp_replace(lower(NEW.name), '[^a-z0-9]+', '-', 'g')), 34), ''),
    nullif(left(trim(BOTH '-' FROM regexp_replace(lower(split_part(NEW.email, '@', 1)), '[^a-z0-9]+', '-', 'g')), 34), ''),
    'user');
  candidate text := trim(TRAILING '-' FROM base);
  n int := 1;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('pm_user_handle:' || candidate));
  base := candidate;
  WHILE EXISTS (SELECT 1 FROM users WHERE handle = candidate) LOOP
    n := n + 1;
    candidate := base || n;
  END LOOP;
  NEW.handle := candidate;
  RETURN NEW;
END $$;
