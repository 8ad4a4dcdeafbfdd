-- Marks the transaction that queued a webhook delivery (pm_emit's, a ping's, a redelivery's): the write's position read
-- (src/db/position.ts) answers it, and only such a request relays its workspace's deliveries after its response
-- (src/middleware/webhook-relay). A write in a workspace without webhooks queues none, and sends no relay query.
-- Transaction-local: a rolled-back savepoint (a dry run) takes it back with its deliveries.
CREATE OR REPLACE FUNCTION pm_deliveries_queued() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('pm.deliveries_queued', 'on', true);
  RETURN NULL;
END $$;
