// The typed clients against the real `npm start`, as their users run them: test/client/typed-client.ts (openapi-fetch
// over client/) and test/client/hey-api-client.ts (the client @hey-api/openapi-ts generates from the served
// /openapi.json, into a temporary folder) filter by equality and by `in`, sort, and send a custom field beside the
// typed parameters; both get exactly the right tasks in order, and each uploads 1 MiB and downloads it byte-identical.
// test/unit/openapi-client.test.ts type-checks them.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateHeyApiClient } from "../../scripts/lib/hey-api-client.mjs";
import { root, STARTUP_MS, sharedStack, signUp } from "./lib/stack.mjs";

let stack;
let owner;
let dir;
let expected;
/** A custom field filter, which no parameter of the document names (its keys are the workspace's). */
const custom = { "filter[in][customFields.severity]": ["high", "low"] };

/** The TypeScript script `file`, bundled for Node (types erased, its imports inlined) and imported. */
async function load(file) {
  const outfile = path.join(dir, `${path.basename(file, ".ts")}.mjs`);
  await build({ entryPoints: [file], bundle: true, format: "esm", platform: "node", target: "node20", outfile, logLevel: "warning" });
  return import(pathToFileURL(outfile).href);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "pm-generated-clients-"));
  stack = await sharedStack();
  owner = await signUp(stack, "clients");
  const create = async (pathname, body) => {
    const res = await stack.call("POST", pathname, { key: owner.key, body });
    expect(res.status, `POST ${pathname}: ${res.text}`).toBe(201);
    return res.body;
  };
  const { team } = await create("/teams", { name: "Engineering", prefix: "ENG" });
  await create("/fields", { key: "severity", name: "Severity", type: "text", recordTypes: ["task"] });
  const task = async (title, status, priority, more = {}) =>
    (await create("/tasks", { teamId: team.id, title, status, priority, ...more })).task.reference;
  const alpha = await task("Alpha", "TODO", "HIGH", { customFields: { severity: "high" } });
  const bravo = await task("Bravo", "DONE", "HIGH", { customFields: { severity: "low" } });
  const charlie = await task("Charlie", "TODO", "LOW", { customFields: { severity: "high" }, parentId: alpha });
  await task("Delta", "IN_PROGRESS", "NONE");
  const echo = await task("Echo", "DONE", "URGENT", { customFields: { severity: "medium" } });
  expected = {
    high: [alpha, bravo],
    todoOrDoneByTitle: [echo, charlie, bravo, alpha],
    topLevelWithCustom: [bravo, alpha],
  };
}, STARTUP_MS + 60_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 40_000);

describe("generated clients list filtered and sorted tasks from the running service", () => {
  it("openapi-fetch over client/ (types by openapi-typescript, committed as client/api.d.ts)", async () => {
    const { filteredTasks } = await load(path.join(root, "test/client/typed-client.ts"));
    expect(await filteredTasks(stack.base, owner.key, custom)).toEqual(expected);
  });

  it("@hey-api/openapi-ts with its fetch client, generated from the served /openapi.json", async () => {
    const document = await stack.call("GET", "/openapi.json");
    expect(document.status).toBe(200);
    await generateHeyApiClient(document.body, path.join(dir, "hey-api"));
    const script = path.join(dir, "hey-api-client.ts");
    copyFileSync(path.join(root, "test/client/hey-api-client.ts"), script);
    const { filteredTasks } = await load(script);
    expect(await filteredTasks(stack.base, owner.key, custom)).toEqual(expected);
  }, 60_000);
});

describe("generated clients upload and download a file byte for byte", () => {
  /** 1 MiB of random bytes (crypto.getRandomValues fills at most 64 KiB at a time). */
  const oneMiB = () => {
    const bytes = new Uint8Array(1024 * 1024);
    for (let at = 0; at < bytes.length; at += 65536) crypto.getRandomValues(bytes.subarray(at, at + 65536));
    return bytes;
  };

  it("openapi-fetch over client/files.ts and the hey-api SDK each send 1 MiB and get the same bytes back", async () => {
    const typed = await load(path.join(root, "test/client/typed-client.ts"));
    // The hey-api client and script of the test above, generated into `dir`.
    const heyApi = await load(path.join(dir, "hey-api-client.ts"));
    for (const { fileRoundTrip } of [typed, heyApi]) {
      const bytes = oneMiB();
      const back = await fileRoundTrip(stack.base, owner.key, expected.high[0], bytes);
      expect(back.byteLength).toBe(bytes.byteLength);
      expect(Buffer.compare(Buffer.from(back), Buffer.from(bytes))).toBe(0);
    }
  }, 60_000);

  it("a JSON-encoded Blob (the body {} as application/json) is refused, 400, nothing stored", async () => {
    const task = expected.high[0];
    const before = (await stack.call("GET", `/tasks/${task}/attachments`, { key: owner.key })).body.attachments.length;
    const res = await stack.call("POST", `/tasks/${task}/attachments?filename=shot.png`, { key: owner.key, body: {} });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.message).toMatch(/JSON \{\}, not a file's bytes.*bodySerializer/);
    expect((await stack.call("GET", `/tasks/${task}/attachments`, { key: owner.key })).body.attachments).toHaveLength(before);
  });
});
