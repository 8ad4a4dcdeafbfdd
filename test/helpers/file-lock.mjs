// The run's worker slots (vitest.config.ts) may each hold a Workers file, each in a workerd runtime of its own. A
// runtime is bound to one of the run's PostgreSQL servers (test/global-setup.ts), and the files on one server take its
// lock for their run, one at a time: each has tenants of its own, but the event log's visibility is the server's (an
// event shows once every transaction begun before it has ended, in any database of the server), so another file's long
// transaction (a seed of 100,000 tasks, a rename of them all) held back the events a file had just written, and a file
// that sweeps every tenant (the scheduled handler's relays) moved other files' rows under their counts. Files on
// different servers run side by side. A mutex per server over HTTP (Node side, started by test/global-setup.ts;
// test/helpers/file-lock-setup.ts takes its runtime's), granted first come first served:
//   POST /<server>/acquire   answers once granted     POST /<server>/release
import { createServer } from "node:http";

export async function startFileLock() {
  /** Each lock's state by its name (the first segment of the path: `/0/acquire`). */
  const locks = new Map();
  const lockOf = (name) => {
    if (!locks.has(name)) locks.set(name, { held: false, /** @type {Array<() => void>} */ waiting: [] });
    return locks.get(name);
  };
  const pump = (lock) => {
    if (!lock.held && lock.waiting.length > 0) {
      lock.held = true;
      lock.waiting.shift()();
    }
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://lock");
    const [, name = "", action = ""] = url.pathname.split("/");
    const lock = lockOf(name);
    if (req.method !== "POST") {
      res.writeHead(405).end();
    } else if (action === "release") {
      lock.held = false;
      res.writeHead(204).end();
      pump(lock);
    } else {
      const grant = () => res.writeHead(204).end();
      // A file that stopped waiting (its runtime went away) gives up its place.
      res.on("close", () => {
        const at = lock.waiting.indexOf(grant);
        if (at !== -1) lock.waiting.splice(at, 1);
      });
      lock.waiting.push(grant);
      pump(lock);
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  };
}
