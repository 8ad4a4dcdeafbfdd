// The API Worker's memory as its isolate sees it, for the bench's export and import rows: V8's Runtime.getHeapUsage,
// asked through wrangler's DevTools proxy (`startStack({ inspectorPort })`), which attaches to the API Worker's isolate
// (the runtime serves one DevTools session per isolate: a second connection to it gets no answers). Sampled while a
// request runs, the peak is what the isolate held of the 128 MB a Worker may use
// (https://developers.cloudflare.com/workers/platform/limits/#memory).
import { readdirSync, readFileSync } from "node:fs";
import WebSocket from "ws";

const stat = (pid) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");

/**
 * The CPU time (user + system, ms) the workerd processes under `pid` (wrangler's tree) have used so far: read before
 * and after a request, an upper bound of the Worker's CPU time for it (it includes the runtime's own work, and wrangler's
 * proxy in front). Linux only.
 */
export function workerdCpuMs(pid) {
  const processes = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  const parent = new Map(
    processes.map((p) => [
      p,
      (() => {
        try {
          return stat(p)[1];
        } catch {
          return null;
        }
      })(),
    ]),
  );
  let total = 0;
  for (let queue = [String(pid)]; queue.length; ) {
    const children = processes.filter((p) => parent.get(p) === queue[0]);
    queue = [...queue.slice(1), ...children];
    for (const child of children) {
      if (!readFileSync(`/proc/${child}/cmdline`, "utf8").includes("workerd")) continue;
      const fields = stat(child);
      total += (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
    }
  }
  return total;
}

/** A DevTools connection (wrangler's proxy on `port`, or the endpoint `url`): `call(method, params)` answers the protocol's result. */
export async function connectInspector(port, url = `ws://127.0.0.1:${port}/ws`) {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  let next = 0;
  const pending = new Map();
  socket.on("message", (data) => {
    const message = JSON.parse(String(data));
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.error) waiting.reject(new Error(message.error.message));
    else waiting.resolve(message.result);
  });
  return {
    call: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = ++next;
        pending.set(id, { resolve, reject });
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

const MB = 1024 * 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A full collection of the isolate. The runtime carries it out (and answers) only when the isolate next runs, so while
 * it is idle `wake` gives it a request to run; while a request runs, it is answered at once, else given up after a second.
 */
async function collect(inspector, wake) {
  const done = inspector.call("HeapProfiler.collectGarbage");
  await Promise.race([wake ? Promise.all([done, wake()]) : done, sleep(1000)]);
}

/**
 * Runs `work` while sampling the isolate's heap every `everyMs`; returns its result with `heap`, in MB: the used heap
 * after a full collection before it (`beforeMb`), the peak used heap during it (`peakMb`), and the peak of ArrayBuffer
 * memory outside the heap (`buffersMb`: request and response bodies, WebSocket frames). With `collect`, a full
 * collection before each sample, so the peak is what the request held rather than garbage V8 had no reason to collect
 * yet (without a limit, as locally, it lets garbage grow for long). `wake`: a request that makes the isolate run (see
 * collect). Without an inspector (a service the bench did not start), `heap` is null.
 */
export async function withHeapPeak(inspector, work, { everyMs = 20, collect: collecting = false, wake } = {}) {
  if (!inspector) return { ...(await work()), heap: null };
  await collect(inspector, wake);
  const before = await inspector.call("Runtime.getHeapUsage");
  let peak = before.usedSize;
  let buffers = before.backingStorageSize ?? 0;
  let running = true;
  const sampling = (async () => {
    while (running) {
      if (collecting) await collect(inspector);
      const usage = await inspector.call("Runtime.getHeapUsage");
      peak = Math.max(peak, usage.usedSize);
      buffers = Math.max(buffers, usage.backingStorageSize ?? 0);
      await sleep(everyMs);
    }
  })();
  try {
    return { ...(await work()), heap: { beforeMb: before.usedSize / MB, peakMb: peak / MB, buffersMb: buffers / MB } };
  } finally {
    running = false;
    await sampling;
  }
}
