// A real HTTP receiver for the webhook tests (Node side, started by test/global-setup.ts on 127.0.0.1). What it answers
// depends on the first segment of the path, so each test picks its behaviour with a path of its own:
//   /ok/…      200                       /gone/…   410
//   /flaky/…   500 twice, then 200       /slow/…   answers 200 after 10 s
//   /fail/…    500 always                /retry/…  503 with Retry-After: 1 once, then 200
// Every request is recorded (path, headers, body, when) and readable with GET /_requests?path=<path>.
import { createServer } from "node:http";

export async function startWebhookReceiver() {
  /** @type {Array<{path: string, method: string, headers: Record<string, string>, body: string, at: number}>} */
  const requests = [];
  const seen = new Map();
  const sockets = new Set();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://receiver");
    if (req.method === "GET" && url.pathname === "/_requests") {
      const path = url.searchParams.get("path");
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ requests: requests.filter((r) => path === null || r.path === path) }));
      return;
    }
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const path = url.pathname;
      requests.push({
        path,
        method: req.method ?? "",
        headers: /** @type {Record<string, string>} */ (req.headers),
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      });
      const count = (seen.get(path) ?? 0) + 1;
      seen.set(path, count);
      const kind = path.split("/")[1];
      const answer = (status, headers = {}) => {
        if (res.writableEnded || res.destroyed) return;
        res.writeHead(status, { "content-type": "text/plain", ...headers });
        res.end(status < 300 ? "ok" : "no");
      };
      if (kind === "ok") answer(200);
      else if (kind === "gone") answer(410);
      else if (kind === "fail") answer(500);
      else if (kind === "flaky") answer(count <= 2 ? 500 : 200);
      else if (kind === "retry") answer(count === 1 ? 503 : 200, count === 1 ? { "retry-after": "1" } : {});
      else if (kind === "slow") setTimeout(() => answer(200), 10_000).unref();
      else answer(404);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve(undefined));
      }),
  };
}
