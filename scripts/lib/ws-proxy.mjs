// WebSocket-to-TCP proxy: lets the Neon serverless driver inside workerd reach the local PostgreSQL,
// exactly as it reaches Neon's own proxy in production (`/v1?address=host:port`).
import net from "node:net";
import { WebSocketServer } from "ws";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/** @returns {Promise<{ port: number, url: string, close: () => Promise<void> }>} */
export function startWsProxy({ port = 0, log = () => {} } = {}) {
  const wss = new WebSocketServer({ host: "127.0.0.1", port, perMessageDeflate: false });
  wss.on("connection", (ws, req) => {
    const address = new URL(req.url ?? "/", "http://proxy").searchParams.get("address") ?? "";
    const i = address.lastIndexOf(":");
    const host = address.slice(0, i);
    const targetPort = Number(address.slice(i + 1));
    // Only loopback targets: this proxy must never become a way out of the machine.
    if (!LOOPBACK.has(host) || !Number.isInteger(targetPort)) {
      ws.close(1008, "target not allowed");
      return;
    }
    const tcp = net.connect({ host, port: targetPort });
    tcp.setNoDelay(true);
    const pending = [];
    tcp.on("connect", () => {
      for (const chunk of pending.splice(0)) tcp.write(chunk);
    });
    ws.on("message", (data) => {
      if (tcp.connecting) pending.push(data);
      else tcp.write(data);
    });
    tcp.on("data", (chunk) => ws.readyState === ws.OPEN && ws.send(chunk));
    const end = () => {
      tcp.destroy();
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.terminate();
    };
    tcp.on("error", (e) => {
      log(`proxy tcp error: ${e.message}`);
      end();
    });
    tcp.on("close", end);
    ws.on("close", end);
    ws.on("error", end);
  });
  return new Promise((resolve, reject) => {
    wss.once("error", reject);
    wss.once("listening", () => {
      const { port: p } = wss.address();
      resolve({
        port: p,
        url: `ws://127.0.0.1:${p}`,
        close: () =>
          new Promise((r) => {
            for (const c of wss.clients) c.terminate();
            wss.close(() => r());
          }),
      });
    });
  });
}
