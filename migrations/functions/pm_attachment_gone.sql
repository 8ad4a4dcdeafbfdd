-- The stored bytes of every attachment deleted (itself, or with its comment or task by cascade) go through the outbox
-- (file_deletions), in the deleting transaction: the queue consumer removes them after the commit.
CREATE OR REPLACE FUNCTION pm_attachment_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO file_deletions (object_key) SELECT object_key FROM old_rows ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
