CREATE TABLE "dev_webhook_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"headers" jsonb NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "dev_webhook_requests_created_idx" ON "dev_webhook_requests" USING btree ("created_at","id");