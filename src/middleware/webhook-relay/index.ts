// After the response of a request whose writes queued webhook deliveries (or may have: a write whose position was not
// read, src/db/client.ts), the relay sends the due deliveries of the caller's workspace, its own events' among them, to
// the webhook queue (src/webhooks/relay.ts), before the request's connection closes: one tenant's requests do not do
// another's work. A write in a workspace without webhooks queues none and sends no relay query.
// A request without a caller (an invite redeemed) relays every workspace's. The Cron Trigger relays what a failed or
// lost send left behind. The bodies are rendered with the app's event rendering (made from its modules, in app.ts).
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../http/context";
import type { CallerEnv } from "../../http/with-caller";
import type { EventRendering } from "../../records/events";
import { relayWebhooks } from "../../webhooks/relay";

export const webhookRelay = (rendering: EventRendering) =>
  createMiddleware<AppEnv>(async (c, next) => {
    await next();
    const rdb = c.get("rdb");
    if (!rdb.queuedDeliveries) return;
    const caller = (c as unknown as Context<CallerEnv>).get("caller");
    const workspace = caller ? caller.actor.workspace : undefined;
    rdb.defer((db) => relayWebhooks(db, c.env, rendering, workspace));
  });
