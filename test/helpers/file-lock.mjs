// The run's two worker slots (vitest.config.ts) may both hold a Workers file, each in a workerd runtime of its own, on
// the one PostgreSQL. Files there take this lock for their run, one at a time: each has tenants of its own, but the event
// log's visibility is the database's (an event shows once every transaction begun before it has ended), so another file's
// long transaction (a seed of 100,000 tasks, a rename of them all) held back the events a file had just written, and a
// file that sweeps every tenant (the scheduled handler's relays) moved other files' rows under their counts. Smoke and
// unit files, on servers of their own or none, still run beside them. A mutex over HTTP (Node side, started by
// test/global-setup.ts; test/helpers/file-lock-setup.ts takes it), granted first come first served:
//   POST /acquire   answers once granted     POST /release
import { createServer } from "node:http";

export async function startFileLock() {
  let held = false;
  /** @type {Array<() => void>} */
  const waiting = [];
  const pump = () => {
    if (!held && waiting.length > 0) {
      held = true;
      waiting.shift()();
    }
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://lock");
    if (req.method !== "POST") {
      res.writeHead(405).end();
    } else if (url.pathname === "/release") {
      held = false;
      res.writeHead(204).end();
      pump();
    } else {
      const grant = () => res.writeHead(204).end();
      // A file that stopped waiting (its runtime went away) gives up its place.
      res.on("close", () => {
        const at = waiting.indexOf(grant);
        if (at !== -1) waiting.splice(at, 1);
      });
      waiting.push(grant);
      pump();
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
