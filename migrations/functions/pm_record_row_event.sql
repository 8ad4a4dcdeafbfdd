-- The same for one row, for a row trigger (one whose WHEN leaves out bookkeeping updates); its second argument, when
-- given, is the action (a task's `claimed` or `released`), else `updated`.
CREATE OR REPLACE FUNCTION pm_record_row_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pm_emit(TG_ARGV[0], coalesce(TG_ARGV[1], 'updated'), jsonb_build_array(jsonb_build_object('id', NEW.id, 'ws', NEW.workspace_id,
    'before', pm_image(OLD), 'after', pm_image(NEW))));
  RETURN NULL;
END $$;
