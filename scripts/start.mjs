// `npm start`: the API at http://127.0.0.1:8787 with its own PostgreSQL, queue and dev mailbox.
import { startStack } from "./lib/stack.mjs";

const stack = await startStack({ port: Number(process.env.PORT ?? 8787) });
console.log(`\nAPI ready at ${stack.baseUrl}  (docs: ${stack.baseUrl}/docs, mailbox: ${stack.baseUrl}/_dev/mailbox?to=<email>)\nCtrl-C stops everything.\n`);

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
