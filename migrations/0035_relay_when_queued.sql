-- hand-written: a request relays webhook deliveries after its response only when its writes queued one
-- (src/middleware/webhook-relay). The function's text is its file's (migrations/functions/pm_deliveries_queued.sql),
-- which runs after this.
CREATE FUNCTION pm_deliveries_queued() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;--> statement-breakpoint
CREATE TRIGGER webhook_deliveries_queued AFTER INSERT ON webhook_deliveries FOR EACH STATEMENT EXECUTE FUNCTION pm_deliveries_queued();
