-- The same for one row, for a row trigger (one whose WHEN leaves out bookkeeping updates).
CREATE OR REPLACE FUNCTION pm_record_row_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pm_emit(TG_ARGV[0], 'updated', jsonb_build_array(jsonb_build_object('id', NEW.id, 'ws', NEW.workspace_id,
    'before', pm_image(OLD), 'after', pm_image(NEW))));
  RETURN NULL;
END $$;
