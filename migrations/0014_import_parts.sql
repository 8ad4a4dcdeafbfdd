CREATE TABLE "import_parts" (
	"import_id" text NOT NULL,
	"number" integer NOT NULL,
	"type" text NOT NULL,
	"root" text NOT NULL,
	"bytes" integer NOT NULL,
	"records" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "import_parts_import_id_number_pk" PRIMARY KEY("import_id","number")
);
--> statement-breakpoint
CREATE TABLE "import_records" (
	"import_id" text NOT NULL,
	"part" integer NOT NULL,
	"collection" text NOT NULL,
	"position" integer NOT NULL,
	"record_id" text NOT NULL,
	"record" jsonb NOT NULL,
	CONSTRAINT "import_records_import_id_collection_part_position_pk" PRIMARY KEY("import_id","collection","part","position")
);
--> statement-breakpoint
CREATE TABLE "imports" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"user_id" text NOT NULL,
	"team_id" text,
	"update" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"committed_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "import_parts" ADD CONSTRAINT "import_parts_import_id_imports_id_fk" FOREIGN KEY ("import_id") REFERENCES "public"."imports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "import_records" ADD CONSTRAINT "import_records_import_id_part_import_parts_import_id_number_fk" FOREIGN KEY ("import_id","part") REFERENCES "public"."import_parts"("import_id","number") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "imports" ADD CONSTRAINT "imports_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "imports" ADD CONSTRAINT "imports_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "imports" ADD CONSTRAINT "imports_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "import_records_id_key" ON "import_records" USING btree ("import_id",("collection" = 'users'),"record_id");--> statement-breakpoint
CREATE INDEX "imports_user_idx" ON "imports" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "imports_expires_idx" ON "imports" USING btree ("expires_at");--> statement-breakpoint
-- An import writes its tasks a page at a time in the export's order, and a subtask may come before its parent: the
-- parent link is checked when the import's transaction commits. Every other write still checks it at once (a
-- deferrable constraint is immediate unless a transaction defers it).
ALTER TABLE "tasks" ALTER CONSTRAINT "tasks_parent_id_tasks_id_fk" DEFERRABLE INITIALLY IMMEDIATE;--> statement-breakpoint

-- Events of many rows at once, set-based (an import of 100,000 tasks): the record images and label lists of a
-- statement's rows come from joins, not from a function call per row, which planned its query each time (5,000 label
-- links took 6 s, now under 1 s).
CREATE OR REPLACE FUNCTION pm_labels_of_all(kind text, ids text[]) RETURNS TABLE (record_id text, labels text[])
LANGUAGE sql STABLE AS $$
  SELECT l.record_id, array_agg(l.label_id ORDER BY l.label_id) FROM (
    SELECT task_id AS record_id, label_id FROM task_labels WHERE kind = 'task' AND task_id = ANY (ids)
    UNION ALL SELECT project_id, label_id FROM project_labels WHERE kind = 'project' AND project_id = ANY (ids)) l
  GROUP BY l.record_id
$$;--> statement-breakpoint

CREATE OR REPLACE FUNCTION pm_record_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind text := TG_ARGV[0];
  bookkeeping constant text[] := ARRAY['updated_at', 'last_used_at', 'failing_since'];
  labelled constant boolean := kind IN ('task', 'project');
  changes jsonb;
BEGIN
  IF TG_OP = 'INSERT' THEN
    -- A row just inserted has no label links yet (they point at it, so they come after it).
    SELECT jsonb_agg(jsonb_build_object('id', a->>'id', 'ws', CASE WHEN kind = 'workspace' THEN a->>'id' ELSE a->>'workspace_id' END,
        'after', a, 'labels', CASE WHEN labelled THEN '{}'::text[] END))
      INTO changes FROM (SELECT pm_image(n) AS a FROM new_rows n) r;
  ELSIF TG_OP = 'UPDATE' THEN
    -- Foreign-key actions may update a row twice in one statement (a project deleted: its tasks lose their project and
    -- their milestone), and the transition tables then hold both versions: the change is from the version no update
    -- produced to the one no update replaced.
    WITH o AS (SELECT pm_image(x) AS i, to_jsonb(x) AS v FROM old_rows x),
      n AS (SELECT pm_image(x) AS i, to_jsonb(x) AS v FROM new_rows x),
      originals AS (SELECT o.i FROM o WHERE NOT EXISTS (SELECT 1 FROM n WHERE n.v = o.v)),
      finals AS (SELECT n.i FROM n WHERE NOT EXISTS (SELECT 1 FROM o WHERE o.v = n.v)),
      pairs AS (SELECT originals.i AS b, finals.i AS a FROM originals JOIN finals ON finals.i->>'id' = originals.i->>'id'
        WHERE (originals.i - bookkeeping) <> (finals.i - bookkeeping)),
      labelled_now AS (SELECT * FROM pm_labels_of_all(kind, ARRAY(SELECT a->>'id' FROM pairs)))
    SELECT jsonb_agg(jsonb_build_object('id', a->>'id', 'ws', CASE WHEN kind = 'workspace' THEN a->>'id' ELSE a->>'workspace_id' END,
        'before', b, 'after', a, 'labels', CASE WHEN labelled THEN coalesce(l.labels, '{}') END))
      INTO changes FROM pairs LEFT JOIN labelled_now l ON l.record_id = pairs.a->>'id';
  ELSE
    SELECT jsonb_agg(jsonb_build_object('id', b->>'id', 'ws', CASE WHEN kind = 'workspace' THEN b->>'id' ELSE b->>'workspace_id' END,
        'before', b))
      INTO changes FROM (SELECT pm_image(o) AS b FROM old_rows o) r;
  END IF;
  IF changes IS NOT NULL THEN
    PERFORM pm_emit(kind, CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END, changes);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint

-- Labels attached to or taken off tasks or projects are changes of those records (`labelIds`), once per statement. A
-- record that is itself going (its links go with it) has its own event.
CREATE OR REPLACE FUNCTION pm_label_link_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  parent text := TG_ARGV[0];
  links jsonb;
  changes jsonb;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT jsonb_agg(to_jsonb(n)) INTO links FROM new_rows n;
  ELSE
    SELECT jsonb_agg(to_jsonb(o)) INTO links FROM old_rows o;
  END IF;
  WITH l AS (
    SELECT coalesce(l.task_id, l.project_id) AS pid, l.label_id
    FROM jsonb_to_recordset(links) AS l(task_id text, project_id text, label_id text)
  ), g AS (SELECT pid, jsonb_agg(label_id) AS ids FROM l GROUP BY pid),
  images AS (
    SELECT t.id, pm_image(t) AS img FROM tasks t WHERE parent = 'task' AND t.id IN (SELECT pid FROM g)
    UNION ALL SELECT p.id, pm_image(p) FROM projects p WHERE parent = 'project' AND p.id IN (SELECT pid FROM g)
  ), labelled_now AS (SELECT * FROM pm_labels_of_all(parent, ARRAY(SELECT pid FROM g)))
  SELECT jsonb_agg(jsonb_build_object('ws', i.img->>'workspace_id', 'id', g.pid, 'before', i.img, 'after', i.img,
      'labels', coalesce(l.labels, '{}'), CASE TG_OP WHEN 'INSERT' THEN 'added' ELSE 'removed' END, g.ids))
    INTO changes
    FROM g JOIN images i ON i.id = g.pid LEFT JOIN labelled_now l ON l.record_id = g.pid;
  IF changes IS NOT NULL THEN PERFORM pm_emit(parent, 'updated', changes); END IF;
  RETURN NULL;
END $$;--> statement-breakpoint

DROP FUNCTION pm_labels_of(text, text);--> statement-breakpoint
DROP FUNCTION pm_record_image(text, text);
