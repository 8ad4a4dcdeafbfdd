// The API Worker's memory as its isolate sees it, for the bench's export and import rows: V8's Runtime.getHeapUsage,
// asked through wrangler's DevTools proxy (`startStack({ inspectorPort })`), which attaches to the API Worker's isolate
// (the runtime serves one DevTools session per isolate: a second connection to it gets no answers). Sampled while a
// request runs, the peak is what the isolate held of the 128 MB a Worker may use
// (https://developers.cloudflare.com/workers/platform/limits/#memory).
import WebSocket from "ws";

/** A DevTools connection: `call(method, params)` answers the protocol's result. */
export async function connectInspector(port) {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`, { perMessageDeflate: false });
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

/**
 * Runs `work` while sampling the isolate's heap every `everyMs`; returns its result with `heap`, in MB: the used heap
 * after a full collection before it (`beforeMb`), the peak used heap during it (`peakMb`; garbage not yet collected
 * counts too, so it bounds what the request held from above) and the peak of ArrayBuffer memory outside the heap
 * (`buffersMb`: request and response bodies, WebSocket frames).
 */
export async function withHeapPeak(inspector, work, { everyMs = 20, collect = false } = {}) {
  await inspector.call("HeapProfiler.collectGarbage");
  const before = await inspector.call("Runtime.getHeapUsage");
  let peak = before.usedSize;
  let buffers = before.backingStorageSize ?? 0;
  let running = true;
  const sampling = (async () => {
    while (running) {
      if (collect) await inspector.call("HeapProfiler.collectGarbage");
      const usage = await inspector.call("Runtime.getHeapUsage");
      peak = Math.max(peak, usage.usedSize);
      buffers = Math.max(buffers, usage.backingStorageSize ?? 0);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  try {
    return { ...(await work()), heap: { beforeMb: before.usedSize / MB, peakMb: peak / MB, buffersMb: buffers / MB } };
  } finally {
    running = false;
    await sampling;
  }
}
