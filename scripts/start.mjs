// `npm start`: the API at http://127.0.0.1:8787 with its own PostgreSQL, queue and dev mailbox.
// PORT, PM_DATA_DIR (default .data) and PG_PORT (default 54329, 0 = any free port) let a second stack run
// beside the first, as the smoke test does.
import { startStack } from "./lib/stack.mjs";

const stack = await startStack({
  port: Number(process.env.PORT || 8787),
  dataDir: process.env.PM_DATA_DIR || ".data",
  pgPort: process.env.PG_PORT === undefined || process.env.PG_PORT === "" ? 54329 : Number(process.env.PG_PORT),
});
console.log(
  `\nAPI ready at ${stack.baseUrl}  (docs: ${stack.baseUrl}/docs, mailbox: ${stack.baseUrl}/_dev/mailbox?to=<email>)\nCtrl-C stops everything.\n`,
);

let closing = false;
const shutdown = async (signal) => {
  if (closing) return;
  closing = true;
  console.log(`\n${signal}: stopping…`);
  await stack.stop();
  process.exit(0);
};
process.on("SIGINT", () => shutdown("SIGINT"));
process.on("SIGTERM", () => shutdown("SIGTERM"));
stack.child.on("exit", (code) => {
  if (!closing) {
    console.error(`wrangler exited (${code}); stopping.`);
    shutdown("exit");
  }
});
