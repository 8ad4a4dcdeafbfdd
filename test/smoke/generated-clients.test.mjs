// The typed clients against the real `npm start`, as their users run them: test/client/typed-client.ts (openapi-fetch
// over client/) and test/client/hey-api-client.ts (the client @hey-api/openapi-ts generates from the served
// /openapi.json, into a temporary folder) filter by equality and by `in`, sort, and send a custom field beside the
// typed parameters; both get exactly the right tasks in order. test/unit/openapi-client.test.ts type-checks them.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateHeyApiClient } from "../../scripts/lib/hey-api-client.mjs";
import { root, STARTUP_MS, signUp, startStack } from "./lib/stack.mjs";

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
  stack = await startStack();
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
