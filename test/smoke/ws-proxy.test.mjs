// The proxy's distance (`delayMs`): each message waits that long each way, the upgrade twice that, so every
// round trip through it costs 2 × delayMs, as a far database would. (Node code: it lives with the smoke tests,
// outside the TypeScript program, which has no Node types.)
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startWsProxy } from "../../scripts/lib/ws-proxy.mjs";

let echo;
let echoPort;
beforeAll(async () => {
  echo = net.createServer((socket) => socket.pipe(socket));
  await new Promise((r) => echo.listen(0, "127.0.0.1", () => r()));
  echoPort = echo.address().port;
});
afterAll(() => new Promise((r) => echo.close(() => r())));

/** Milliseconds to open a WebSocket through the proxy, and then for one echo round trip. */
async function timings(delayMs) {
  const proxy = await startWsProxy({ delayMs });
  try {
    const started = performance.now();
    const ws = new WebSocket(`${proxy.url}/v1?address=127.0.0.1:${echoPort}`);
    await new Promise((r, j) => ws.once("open", r).once("error", j));
    const opened = performance.now();
    const reply = new Promise((r) => ws.once("message", (data) => r(String(data))));
    ws.send("ping");
    expect(await reply).toBe("ping");
    const echoed = performance.now();
    ws.close();
    return { upgrade: opened - started, roundTrip: echoed - opened };
  } finally {
    await proxy.close();
  }
}

describe("ws-proxy delay", () => {
  it("costs a round trip of 2 × delayMs for the upgrade and for each message and its answer", async () => {
    const far = await timings(25);
    expect(far.upgrade).toBeGreaterThanOrEqual(49);
    expect(far.roundTrip).toBeGreaterThanOrEqual(49);
  });

  it("adds nothing by default", async () => {
    const near = await timings(0);
    expect(near.upgrade + near.roundTrip).toBeLessThan(45);
  });

  it("keeps the order of messages", async () => {
    const proxy = await startWsProxy({ delayMs: 5 });
    try {
      const ws = new WebSocket(`${proxy.url}/v1?address=127.0.0.1:${echoPort}`);
      await new Promise((r) => ws.once("open", r));
      let got = "";
      const done = new Promise((r) =>
        ws.on("message", (data) => {
          got += String(data);
          if (got.length >= 10) r();
        }),
      );
      for (const c of "0123456789") ws.send(c);
      await done;
      expect(got).toBe("0123456789");
      ws.close();
    } finally {
      await proxy.close();
    }
  });
});
