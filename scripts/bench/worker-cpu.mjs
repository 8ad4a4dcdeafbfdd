// The Workers' CPU time per request, for the bench's CPU columns. wrangler dev runs every Worker of the stack in one
// workerd process, on one thread, so the process's CPU time (the kernel's count, in ns, /proc/<pid>/task/*/schedstat)
// over a run of sequential requests started once it is idle, divided by their number, is the Workers' CPU time per
// request: their JavaScript, the runtime's own work for them (I/O, the service binding between them) and what runs
// after the answer (waitUntil: closing the pool, deferred writes). It is split between the front Worker and the API
// Worker by sending the same requests to the API Worker directly (miniflare's entry routes a request carrying
// `MF-Route-Override: <worker>` to that Worker, skipping the front): the front's share is the difference. A V8 CPU
// profile through the inspector does not give these numbers: its samples are wall-clock intervals, so on a shared
// machine the time the process waits for a core counts as the JavaScript it was in (it reported 16 + 22 ms of
// JavaScript for requests whose whole process used 4.3 ms of CPU); it shows where the time goes, in shares
// (scripts/bench/profile.mjs). Linux only.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

const API_WORKER = "pm-api";

const cmdline = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
};
const parentOf = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1];
  } catch {
    return null;
  }
};

/** The workerd process under `rootPid` (wrangler) that runs the stack's Workers (the other one is wrangler's own proxy). */
export function workersProcess(rootPid) {
  const all = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  const under = (pid) => {
    for (let p = pid; p && p !== "0" && p !== "1"; p = parentOf(p)) if (p === String(rootPid)) return true;
    return false;
  };
  // wrangler's proxy listens on the public port; the Workers' process on an entry socket it chose (`entry=…:0`).
  const pid = all.find((p) => {
    const args = cmdline(p);
    return args[0]?.endsWith("workerd") && args.some((a) => /^--socket-addr=entry=.*:0$/.test(a)) && under(p);
  });
  if (!pid) throw new Error("no workerd process of the stack's Workers found");
  return pid;
}

/** The loopback ports `pid` listens on. */
export function listeningPorts(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {}
  }
  const ports = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === "0A" && inodes.has(f[9])) ports.push(Number.parseInt(f[1].split(":")[1], 16));
    }
  }
  return ports;
}

/**
 * The Workers' CPU clock of the stack started by `startStack` (its wrangler child's pid): `cpuMs()` reads it, and
 * `apiUrl` is the stack's entry that sends requests to the API Worker directly (with `apiHeaders`).
 */
export async function workersCpu(rootPid) {
  const pid = workersProcess(rootPid);
  const apiHeaders = { "MF-Route-Override": API_WORKER };
  let apiUrl;
  for (const port of listeningPorts(pid)) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`, { headers: apiHeaders, signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.ok && res.headers.has("x-request-id")) {
        apiUrl = `http://127.0.0.1:${port}`;
        break;
      }
    } catch {}
  }
  if (!apiUrl) throw new Error("the Workers' entry socket was not found");
  const cpuMs = () =>
    readdirSync(`/proc/${pid}/task`).reduce((sum, t) => {
      try {
        return sum + Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]) / 1e6;
      } catch {
        return sum; // a thread that ended meanwhile
      }
    }, 0);
  return { cpuMs, settle: () => settled(cpuMs), apiUrl, apiHeaders };
}

/** How long the Workers must stay idle: the email queue delivers a batch up to 1 s after its first message (max_batch_timeout). */
const QUIET_MS = 1200;
/** The CPU the idle process may still use over that window (its timers, the runtime's housekeeping). */
const QUIET_CPU_MS = 1;

/** How often the wait for idle reads the clock. */
const POLL_MS = 200;
/** The longest wait for idle: a row of 100 requests mentioning 20 people each leaves the consumer 2,000 mails. */
const SETTLE_MAX_MS = 60_000;

/**
 * Waits until the Workers are idle: what an earlier row left running (the queue consumer's mails, a relay's
 * deliveries, waitUntil work) is then not counted in the next row's CPU time.
 */
async function settled(cpuMs) {
  const readings = [cpuMs()];
  const started = performance.now();
  while (performance.now() - started < SETTLE_MAX_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    readings.push(cpuMs());
    const window = readings.slice(-(QUIET_MS / POLL_MS + 1));
    if (window.length > QUIET_MS / POLL_MS && window.at(-1) - window[0] < QUIET_CPU_MS) return;
  }
  console.warn(`the Workers were still busy after ${SETTLE_MAX_MS / 1000} s: this sample counts what was left running`);
}
