// One rule for what a record may hold, on every path that writes it (docs/api.md, "Export and import"): every record
// kind made through the API with its extreme accepted values (longest names, edge characters, the largest texts, every
// optional field set) exports and imports again, into a new workspace and into another team; and what an import would
// refuse, no other path stores (an upload's Content-Type, a link's title, a file's name).
import { beforeAll, describe, expect, it } from "vitest";
import { get, patch, post } from "./helpers/api";
import { send, upload } from "./helpers/attachments";
import { addMember, newTeam, newTenant, type Tenant } from "./helpers/fixtures";

/**
 * Exactly `n` UTF-16 units of edge characters a name may hold: quotes, a backslash, markup, right-to-left letters, a
 * combining mark, a zero-width joiner, astral emoji (never split), a Greek final sigma and a Turkish dotted I.
 */
function edge(n: number, salt = ""): string {
  const parts = [salt, "\"'\\", "<&>", "שלום", "عربي", "e\u0301", "👩\u200d💻", "ΟΔΟΣ", "İ", "𝔘", " mid "];
  let out = "";
  for (let i = 0; out.length < n; i++) {
    const part = parts[i % parts.length];
    out += out.length + part.length <= n ? part : "x".repeat(n - out.length);
  }
  return out.trim().length === n ? out : `${out.slice(0, n - 1)}z`;
}

const ok = (res: { status: number; body: any }, status = 201) => {
  expect(res.status, JSON.stringify(res.body).slice(0, 2000)).toBe(status);
  return res.body;
};

let t: Tenant;
let teamId: string;

beforeAll(async () => {
  t = await newTenant("Extremes");
  const key = t.owner.key;
  ok(await patch(`/workspaces/${t.workspaceId}`, { name: edge(200, "W") }, key), 200);
  const parent = ok(await post("/teams", { name: edge(100, "P"), prefix: "XTREMEPAR1" }, key)).team;
  const team = ok(
    await post("/teams", { name: edge(100, "T"), prefix: "XTREME0009", description: edge(100_000), parentId: parent.id }, key),
  ).team;
  teamId = team.id;
  const member = await addMember(t, "MEMBER");
  ok(await post(`/teams/${team.id}/members`, { userId: member.userId, role: "VIEWER" }, key));
  const labels: string[] = [];
  for (let i = 0; i < 3; i++) labels.push(ok(await post("/labels", { name: edge(100, `L${i}`), color: "#ABCDEF" }, key)).label.id);
  const options = Array.from({ length: 200 }, (_, i) => edge(100, `o${i}`));
  const fields = {
    text: ok(
      await post(
        "/fields",
        {
          key: `t${"x".repeat(62)}`,
          name: edge(100, "F"),
          type: "text",
          description: edge(2000),
          recordTypes: ["task", "project", "milestone"],
          presentation: { hint: edge(5000) },
        },
        key,
      ),
    ).field,
    select: ok(
      await post(
        "/fields",
        { key: `s${"y".repeat(62)}`, name: edge(100, "S"), type: "multiselect", recordTypes: ["task"], metadata: { options } },
        key,
      ),
    ).field,
  };
  const custom = { [fields.text.key]: edge(10_000) };
  const project = ok(
    await post(
      "/projects",
      {
        name: edge(200, "Pr"),
        teamId: team.id,
        description: edge(100_000),
        status: "ACTIVE",
        leadId: t.owner.userId,
        startDate: "2000-01-01",
        targetDate: "9999-12-31",
        labelIds: labels,
        customFields: custom,
      },
      key,
    ),
  ).project;
  const milestone = ok(
    await post(
      "/milestones",
      {
        projectId: project.id,
        name: edge(200, "M"),
        description: edge(100_000),
        targetDate: "9999-12-31",
        status: "IN_PROGRESS",
        customFields: custom,
      },
      key,
    ),
  ).milestone;
  const task = (title: string, more: Record<string, unknown> = {}) =>
    post(
      "/tasks",
      {
        teamId: team.id,
        title: edge(500, title),
        description: edge(100_000),
        status: "IN_PROGRESS",
        priority: "URGENT",
        assigneeId: t.owner.userId,
        dueDate: "9999-12-31",
        estimate: 1_000_000,
        projectId: project.id,
        milestoneId: milestone.id,
        labelIds: labels,
        customFields: { ...custom, [fields.select.key]: options },
        ...more,
      },
      key,
    );
  const parentTask = ok(await task("A")).task;
  const child = ok(await task("B", { parentId: parentTask.id })).task;
  ok(await post(`/tasks/${parentTask.id}/relations`, { type: "blocks", taskId: child.id }, key));
  ok(await post(`/tasks/${child.id}/relations`, { type: "related", taskId: parentTask.id }, key));
  const comment = ok(await post("/comments", { taskId: child.id, content: edge(50_000) }, key)).comment;
  ok(await post("/comments", { projectId: project.id, content: edge(50_000, "c") }, key));
  const url = `https://example.com/${"p".repeat(2048 - "https://example.com/".length)}`;
  ok(await post(`/tasks/${child.id}/links`, { url, title: edge(500) }, key));
  // A file name of 255 units and a media type of 255 characters with a quoted parameter.
  const type = `application/vnd.x; name="${"q".repeat(255 - 'application/vnd.x; name=""'.length)}"`;
  expect(type.length).toBe(255);
  const bytes = new TextEncoder().encode("extreme bytes\n");
  const filename = (salt: string) => edge(255, salt).replaceAll("\\", "_"); // a file name has no path separator
  ok(await upload(`/tasks/${child.id}`, key, bytes, filename("f"), { "content-type": type }));
  ok(await upload(`/comments/${comment.id}`, key, bytes, filename("g"), { "content-type": "text/html; charset=utf-7" }));
}, 120_000);

describe("every record kind at its extremes exports and imports again", () => {
  it("the workspace: into a new workspace (201), named as the first", async () => {
    const doc = ok(await get(`/workspaces/${t.workspaceId}/export`, t.owner.key), 200);
    expect(doc.data.attachments).toHaveLength(2);
    const res = await post("/workspaces/import", { data: doc }, t.owner.key);
    ok(res, 201);
    expect(res.body.workspace.name).toBe(doc.data.workspace.name);
  });

  it("the team: into another team (200)", async () => {
    const doc = ok(await get(`/teams/${teamId}/export`, t.owner.key), 200);
    const into = await newTeam(t, { name: "Extremes copy" });
    const res = await post(`/teams/${into.id}/import`, { data: doc }, t.owner.key);
    ok(res, 200);
    const copied = ok(await get(`/tasks?filter[eq][teamId]=${into.id}&sort[number]=asc`, t.owner.key), 200).tasks;
    expect(copied.map((x: { title: string }) => x.title)).toEqual(doc.data.tasks.map((x: { title: string }) => x.title));
  });
});

describe("what an import refuses, no other path stores", () => {
  it("an upload's Content-Type is a media type of at most 255 characters (422 at Content-Type, nothing stored)", async () => {
    const task = ok(await post("/tasks", { teamId, title: "typed" }, t.owner.key)).task;
    const bytes = new TextEncoder().encode("x");
    for (const type of [`text/plain; x=${"a".repeat(2000)}`, "not a type", "text/plain; charset=\u00e9"]) {
      const res = await upload(`/tasks/${task.id}`, t.owner.key, bytes, "a.txt", { "content-type": type });
      expect(res.status, type).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(["Content-Type"]);
    }
    expect(ok(await get(`/tasks/${task.id}/attachments`, t.owner.key), 200).attachments).toEqual([]);
  });

  it("a link's title reads as it is, as a file name must (no bidi overrides or controls: 422 at title)", async () => {
    const task = ok(await post("/tasks", { teamId, title: "linked" }, t.owner.key)).task;
    for (const title of ["fix \u202Egnp.exe", "a\u2066b", "bell\u0007", "line\nbreak"]) {
      const res = await post(`/tasks/${task.id}/links`, { url: "https://example.com/x", title }, t.owner.key);
      expect(res.status, JSON.stringify(title)).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(["title"]);
    }
  });

  it("a file's name is not . or .. (422 at filename)", async () => {
    const task = ok(await post("/tasks", { teamId, title: "named" }, t.owner.key)).task;
    for (const name of [".", ".."]) {
      const res = await send("POST", `/tasks/${task.id}/attachments?filename=${encodeURIComponent(name)}`, t.owner.key, {
        body: new Uint8Array([1]),
        headers: { "content-length": "1" },
      });
      expect(res.status, name).toBe(422);
    }
  });
});
