// `npm start`: the API at http://127.0.0.1:8787 with its own PostgreSQL, queue and dev mailbox.
// PORT, PM_DATA_DIR (default .data) and PG_PORT (default 54329, 0 = any free port) let a second stack run
// beside the first, as the smoke test does.
//
// Ctrl-C in a terminal signals its whole foreground process group: PostgreSQL (which then shuts down at once) and
// wrangler would stop with this process, and email accepted a moment earlier would never leave the local queue. So the
// stack runs in a process group of its own (scripts/lib/stack-process.mjs) and this process hands it every stop signal,
// which it answers with a graceful stop. npm forwards Ctrl-C too: the stack takes the first and ignores the rest.
import { spawn } from "node:child_process";
import path from "node:path";

const stack = spawn(process.execPath, [path.join(import.meta.dirname, "lib/stack-process.mjs")], {
  stdio: ["ignore", "inherit", "inherit", "ipc"], // the IPC channel closing tells the stack this process is gone
  detached: true,
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => stack.kill(signal));
stack.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
