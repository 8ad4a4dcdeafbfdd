ALTER TABLE "api_keys" ADD COLUMN "scopes" text[];--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "team_ids" text[];--> statement-breakpoint
ALTER TABLE "device_authorizations" ADD COLUMN "scopes" text[];--> statement-breakpoint
ALTER TABLE "device_authorizations" ADD COLUMN "team_ids" text[];--> statement-breakpoint
ALTER TABLE "device_authorizations" ADD COLUMN "refresh_hash" text;--> statement-breakpoint
ALTER TABLE "device_authorizations" ADD COLUMN "refresh_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "device_authorizations" ADD COLUMN "revoked_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "device_authorizations_refresh_key" ON "device_authorizations" USING btree ("refresh_hash");