CREATE TABLE "email_outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"sealed_message" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"relays" integer DEFAULT 0 NOT NULL,
	"relay_after" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "email_outbox_relay_after_idx" ON "email_outbox" USING btree ("relay_after");