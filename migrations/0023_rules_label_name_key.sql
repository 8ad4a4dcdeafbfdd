-- A label's name in the one case folding of names (src/records/names.ts `foldName`: NFC, Unicode's full mapping to
-- upper case and back), computed by the Worker on every write; the unique index compares it instead of lower(name),
-- which follows the database's locale. Existing rows get it here by ICU's same mappings when the server has ICU, else
-- by the locale's; a name whose key an older label already has keeps a key of its own (found by id).
ALTER TABLE "labels" ADD COLUMN "name_key" text;--> statement-breakpoint
DO $$
BEGIN
  UPDATE "labels" SET "name_key" = normalize(lower(upper(normalize("name", NFC) COLLATE "und-x-icu") COLLATE "und-x-icu"), NFC);
EXCEPTION WHEN undefined_object THEN
  UPDATE "labels" SET "name_key" = normalize(lower(upper(normalize("name", NFC))), NFC);
END $$;--> statement-breakpoint
UPDATE "labels" l SET "name_key" = l."name_key" || ' ' || l."id"
  FROM "labels" o WHERE o."workspace_id" = l."workspace_id" AND o."name_key" = l."name_key" AND o."id" < l."id";--> statement-breakpoint
ALTER TABLE "labels" ALTER COLUMN "name_key" SET NOT NULL;--> statement-breakpoint
DROP INDEX "labels_workspace_name_key";--> statement-breakpoint
CREATE UNIQUE INDEX "labels_workspace_name_key" ON "labels" USING btree ("workspace_id","name_key");
