// `pm worklog` against the real `npm start`: logging time as a person says it (`1h30m`, started now minus it), listing
// one's own worklogs between two dates with their tasks' references, and a timesheet table by user, team, project or task.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endCliSession, pmRunner, startCliSession } from "./lib/pm.mjs";
import { newEngineeringTeam, STARTUP_MS } from "./lib/stack.mjs";

let stack;
let owner;
let configHome;
let env;
const { pm } = pmRunner(() => configHome);

async function ok(args) {
  const result = await pm(args, env);
  expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result;
}

beforeAll(async () => {
  ({ stack, owner, env, configHome } = await startCliSession("worklog"));
  await newEngineeringTeam(stack, owner);
  for (const title of ["Login", "Logout"]) {
    const task = await stack.call("POST", "/tasks", {
      key: owner.key,
      body: { title, teamId: "ENG", timeTracking: { estimateSeconds: 36_000 } },
    });
    expect(task.status, task.text).toBe(201);
  }
}, STARTUP_MS + 30_000);

afterAll(() => endCliSession({ stack, configHome }), 40_000);

describe("pm worklog", () => {
  it("add logs time as a person says it and lowers what remains; a duration it cannot read is a usage error", async () => {
    expect((await ok(["worklog", "add", "ENG-1", "1h30m", "--note", "Fixed the login"])).stdout).toBe("logged 1h 30m on ENG-1\n");
    expect((await ok(["worklog", "add", "eng-2", "45m", "--started", "2026-03-03T09:00:00Z"])).stdout).toBe("logged 45m on ENG-2\n");
    await ok(["worklog", "add", "ENG-2", "2d", "--started", "2026-03-04T09:00:00Z", "--adjust", "leave"]);
    const task = await stack.call("GET", "/tasks/ENG-1", { key: owner.key });
    expect(task.body.task.timeTracking).toMatchObject({ remainingSeconds: 36_000 - 5400, spentSeconds: 5400 });
    const started = Date.parse(
      (await stack.call("GET", "/worklogs?filter[eq][taskId]=ENG-1", { key: owner.key })).body.worklogs[0].startedAt,
    );
    expect(Math.abs(started - (Date.now() - 5400_000))).toBeLessThan(120_000);

    const bad = await pm(["worklog", "add", "ENG-1", "an hour"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/the duration must be a duration such as `1h 30m`/);
  });

  it("list --me --from --to: one's worklogs in the range, with their tasks' references", async () => {
    const { stdout } = await ok(["worklog", "list", "--me", "--from", "2026-03-01", "--to", "2026-03-08"]);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^STARTED +TASK +TIME +NOTE +ID$/);
    expect(lines.slice(1).map((line) => line.split(/ {2,}/).slice(1, 3))).toEqual([
      ["ENG-2", "45m"],
      ["ENG-2", "16h"],
    ]);
  });

  it("report --by user|task prints the summary as a table with its total", async () => {
    const byUser = (await ok(["worklog", "report", "--by", "user", "--from", "2026-03-01", "--to", "2026-03-08"])).stdout;
    expect(byUser).toMatch(/^USER +TIME +HOURS\nSmoke worklog +16h 45m +16\.75\nTOTAL +16h 45m +16\.75\n$/);
    const byTask = (await ok(["worklog", "report", "--by", "task"])).stdout;
    expect(byTask).toMatch(/^TASK +TIME +HOURS\nENG-2 +16h 45m +16\.75\nENG-1 +1h 30m +1\.50\nTOTAL +18h 15m +18\.25\n$/);
    const json = JSON.parse((await ok(["worklog", "report", "--by", "team", "--json"])).stdout);
    expect(json).toEqual({ rows: [{ key: expect.stringMatching(/^team_/), name: "Engineering", seconds: 65_700 }], totalSeconds: 65_700 });
  });
});
