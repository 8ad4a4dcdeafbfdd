// A headless Chromium for the smoke tests, driven over the Chrome DevTools Protocol with `ws` (no browser package): the
// system's `chromium` (Debian's package; CHROMIUM names another binary), one page, what a person does on it (open a
// URL, fill a field, press a button and wait for the next page), its cookies, the console's errors and a screenshot.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import WebSocket from "ws";

const CANDIDATES = [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** The Chromium binary, or null when none is installed. */
export const chromiumPath = () => CANDIDATES.find((p) => p && existsSync(p)) ?? null;

/** Starts Chromium and opens one page; `close()` ends the browser and removes its profile. */
export async function launch() {
  const binary = chromiumPath();
  if (!binary) throw new Error("No Chromium: apt-get install chromium (or set CHROMIUM)");
  const profile = mkdtempSync(path.join(tmpdir(), "pm-chromium-"));
  const args = ["--headless=new", "--disable-gpu", "--no-first-run", "--no-default-browser-check", "--remote-debugging-port=0"];
  // As root (CI containers) Chromium runs only without its sandbox.
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  const child = spawn(binary, [...args, `--user-data-dir=${profile}`, "about:blank"], { stdio: ["ignore", "ignore", "pipe"] });
  const endpoint = await new Promise((resolve, reject) => {
    let err = "";
    const timer = setTimeout(() => reject(new Error(`Chromium did not start:\n${err}`)), 30_000);
    child.stderr.on("data", (chunk) => {
      err += chunk;
      const found = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`Chromium exited with ${code}:\n${err}`)));
  });

  const ws = new WebSocket(endpoint, { perMessageDeflate: false });
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  let nextId = 0;
  const pending = new Map();
  const listeners = new Set();
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data));
    if (msg.id !== undefined && pending.has(msg.id)) {
      const { resolve, reject, method } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
      else resolve(msg.result);
    } else {
      for (const listen of listeners) listen(msg);
    }
  });
  const send = (method, params = {}, sessionId) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject, method });
      ws.send(JSON.stringify({ id, method, params, ...(sessionId && { sessionId }) }));
    });

  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  const call = (method, params) => send(method, params, sessionId);
  await Promise.all([call("Page.enable"), call("Runtime.enable"), call("Log.enable"), call("Network.enable")]);

  /** What the console and the browser's log reported as errors (a CSP violation is one). */
  const consoleErrors = [];
  listeners.add((msg) => {
    if (msg.sessionId !== sessionId) return;
    if (msg.method === "Log.entryAdded" && msg.params.entry.level === "error") consoleErrors.push(msg.params.entry.text);
    if (msg.method === "Runtime.exceptionThrown") consoleErrors.push(msg.params.exceptionDetails.text);
  });

  /** Resolves at the next page load of the tab. */
  const nextLoad = () =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        listeners.delete(listen);
        reject(new Error("The page did not load within 30 s"));
      }, 30_000);
      const listen = (msg) => {
        if (msg.sessionId === sessionId && msg.method === "Page.loadEventFired") {
          clearTimeout(timer);
          listeners.delete(listen);
          resolve();
        }
      };
      listeners.add(listen);
    });

  /** The value of a JavaScript expression in the page (DevTools' own evaluation: the page's CSP does not apply to it). */
  async function evaluate(expression) {
    const { result, exceptionDetails } = await call("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true });
    if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value;
  }

  const page = {
    consoleErrors,
    evaluate,
    async goto(url) {
      const loaded = nextLoad();
      const { errorText } = await call("Page.navigate", { url });
      if (errorText) throw new Error(`${url}: ${errorText}`);
      await loaded;
    },
    url: () => evaluate("location.href"),
    text: () => evaluate("document.body.innerText"),
    /** Types `value` into the field `selector` as a person does (focus, then text input). */
    async type(selector, value) {
      await evaluate(`document.querySelector(${JSON.stringify(selector)}).focus()`);
      await call("Input.insertText", { text: value });
    },
    /** Presses the button `selector` and waits for the page its form leads to. */
    async press(selector) {
      const loaded = nextLoad();
      await evaluate(`document.querySelector(${JSON.stringify(selector)}).click()`);
      await loaded;
    },
    /** The cookies the browser keeps for `url`. */
    cookies: async (url) => (await call("Network.getCookies", { urls: [url] })).cookies,
    async screenshot(file) {
      const { data } = await call("Page.captureScreenshot", { format: "png", captureBeyondViewport: true });
      writeFileSync(file, Buffer.from(data, "base64"));
    },
    async setViewport(width, height) {
      await call("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: 1, mobile: false });
    },
  };

  async function close() {
    await send("Browser.close").catch(() => {});
    ws.close();
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(profile, { recursive: true, force: true });
  }
  return { page, close };
}
