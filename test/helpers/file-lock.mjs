// The Workers project's files run two at a time (two workerd runtimes, one PostgreSQL, one proxy and receiver), each
// in tenants of its own. A few sweep or lock what every tenant shares (the scheduled handler's relays and sweeps, the
// outcome fences' table): those take this lock alone, the others share it (test/helpers/file-lock-setup.ts), so no
// other file's rows move under their counts. A readers-writer lock over HTTP (Node side, started by
// test/global-setup.ts), granted first come first served: a file waiting to run alone holds back files arriving after it.
//   POST /acquire?mode=shared|alone   answers once granted     POST /release?mode=shared|alone
import { createServer } from "node:http";

export async function startFileLock() {
  let readers = 0;
  let alone = false;
  /** @type {Array<{ mode: string, grant: () => void }>} */
  const waiting = [];
  const grantable = (mode) => !alone && (mode === "shared" || readers === 0);
  const pump = () => {
    while (waiting.length > 0 && grantable(waiting[0].mode)) {
      const next = waiting.shift();
      if (next.mode === "alone") alone = true;
      else readers++;
      next.grant();
    }
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://lock");
    const mode = url.searchParams.get("mode");
    if (req.method !== "POST" || (mode !== "shared" && mode !== "alone")) {
      res.writeHead(400).end();
      return;
    }
    if (url.pathname === "/release") {
      if (mode === "alone") alone = false;
      else readers = Math.max(0, readers - 1);
      res.writeHead(204).end();
      pump();
      return;
    }
    const entry = { mode, grant: () => res.writeHead(204).end() };
    // A file that stopped waiting (its runtime went away) gives up its place.
    res.on("close", () => {
      const at = waiting.indexOf(entry);
      if (at !== -1) waiting.splice(at, 1);
      pump();
    });
    waiting.push(entry);
    pump();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  };
}
