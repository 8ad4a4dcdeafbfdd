-- The same for one row, for a row trigger (one whose WHEN leaves out bookkeeping updates); its second argument, when
-- given, is the action (a task's `claimed` or `released`), else `updated`.
CREATE OR REPLACE FUNCTION pm_record_row_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pm_emit(TG_ARGV[0], coalesce(TG_ARGV[1], 'updated'),
    ARRAY[ROW(NEW.workspace_id, NEW.id, pm_image(OLD), pm_image(NEW), NULL, NULL, NULL)::pm_change]);
  RETURN NULL;
END $$;
