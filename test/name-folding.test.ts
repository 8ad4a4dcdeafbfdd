// One case folding for names (docs/api.md, "Ids and names"; src/records/names.ts `foldName`): a label's name is unique
// in any case and resolves to the same label on every path (a path, a body's labelIds, a filter, a batch item, an MCP
// argument, an import, a rename), also where JavaScript's and PostgreSQL's case mappings part: Greek final sigma
// (`ΟΔΟΣ` lowers to `οδος` in JavaScript and to `οδοσ` or itself in PostgreSQL) and Turkish dotted I (`İ` lowers to
// `i̇`, an i with a combining dot).
import { beforeAll, describe, expect, it } from "vitest";
import { api, get, patch, post } from "./helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant } from "./helpers/fixtures";
import { call, connect } from "./mcp-client";

let t: Tenant;
let team: TeamFixture;
const GREEK = "q ΟΔΟΣ";
const GREEK_CASES = ["q οδος", "q οδοσ", "Q ΟΔΟΣ", "q Οδος"];
const TURKISH = "İSTANBUL q";
const TURKISH_CASES = ["i\u0307stanbul q", "I\u0307STANBUL Q", "İstanbul Q"];
const label: Record<string, { id: string; name: string }> = {};

const ok = (res: { status: number; body: any }, status = 201) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
};
const path = (name: string) => `/labels/${encodeURIComponent(name)}`;

beforeAll(async () => {
  t = await newTenant("Folding");
  team = await newTeam(t, { name: "Folding" });
  for (const name of [GREEK, TURKISH]) label[name] = ok(await post("/labels", { name, color: "#123456" }, t.owner.key)).label;
});

describe("a label's name folds one way for uniqueness and for every lookup", () => {
  it("a name that differs only in case is the same label: 409 on create and on rename", async () => {
    for (const name of [...GREEK_CASES, ...TURKISH_CASES]) {
      const res = await post("/labels", { name, color: "#654321" }, t.owner.key);
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(409);
    }
    const other = ok(await post("/labels", { name: "q other", color: "#654321" }, t.owner.key)).label;
    expect((await patch(`/labels/${other.id}`, { name: "q οδος" }, t.owner.key)).status).toBe(409);
    expect((await patch(`/labels/${other.id}`, { name: "i\u0307stanbul q" }, t.owner.key)).status).toBe(409);
    // Renaming a label to another case of its own name is a rename, not a conflict.
    const renamed = ok(await patch(`/labels/${label[GREEK].id}`, { name: "Q ΟΔΟΣ" }, t.owner.key), 200).label;
    expect(renamed.name).toBe("Q ΟΔΟΣ");
    ok(await patch(`/labels/${label[GREEK].id}`, { name: GREEK }, t.owner.key), 200);
  });

  it("a path, a body's labelIds, a filter, a batch item and MCP resolve every case of the name to the same label", async () => {
    const key = t.owner.key;
    for (const [name, cases] of [
      [GREEK, GREEK_CASES],
      [TURKISH, TURKISH_CASES],
    ] as const) {
      const id = label[name].id;
      for (const named of [name, ...cases]) {
        expect(ok(await get(path(named), key), 200).label.id, `GET ${named}`).toBe(id);
        const task = ok(await post("/tasks", { title: `labelled ${named}`, teamId: team.id, labelIds: [named] }, key)).task;
        expect(
          task.labels.map((l: { id: string }) => l.id),
          `labelIds ${named}`,
        ).toEqual([id]);
        const listed = ok(await get(`/tasks?filter[eq][labelId]=${encodeURIComponent(named)}&limit=250&fields=id`, key), 200);
        expect(listed.tasks.map((x: { id: string }) => x.id)).toContain(task.id);
        const batch = ok(await api("POST", "/batch", { body: { requests: [path(named)] }, key }), 200);
        expect(batch.results[0].label.id, `batch ${named}`).toBe(id);
      }
    }
    const agent = ok(await post("/agents", { name: "Folding bot" }, key)).agent;
    ok(await post(`/teams/${team.id}/members`, { userId: agent.id, role: "MEMBER" }, key));
    const client = await connect({ "svc-api-key": agent.apiKey });
    try {
      for (const named of ["q οδος", "i\u0307stanbul q"]) {
        const made = await call(client, "create_task", { teamId: team.id, title: `mcp ${named}`, labelIds: [named] });
        expect(made.isError, JSON.stringify(made.body)).toBe(false);
        const expected = named === "q οδος" ? label[GREEK].id : label[TURKISH].id;
        expect(made.body.task.labels.map((l: { id: string }) => l.id)).toEqual([expected]);
        const listed = await call(client, "list_tasks", { filter: { eq: { labelId: named } }, limit: 250 });
        expect(listed.isError, JSON.stringify(listed.body)).toBe(false);
        expect(listed.body.tasks.map((x: { id: string }) => x.id)).toContain(made.body.task.id);
      }
    } finally {
      await client.close();
    }
  });

  it("an import matches a label of the target by the same folding: no second label, no conflict", async () => {
    const key = t.owner.key;
    const source = await newTeam(t, { name: "Folding source" });
    ok(await post("/tasks", { title: "carries the label", teamId: source.id, labelIds: [GREEK] }, key));
    const doc = ok(await get(`/teams/${source.id}/export`, key), 200);
    // The document's label in another case, as another workspace's export may spell it.
    doc.data.labels = doc.data.labels.map((l: { id: string; name: string }) => ({
      ...l,
      id: "label_01jz8x4q0be0sv3c5kq9v1y2zz",
      name: "q οδος",
    }));
    doc.data.tasks = doc.data.tasks.map((task: { labelIds: string[] }) => ({ ...task, labelIds: ["label_01jz8x4q0be0sv3c5kq9v1y2zz"] }));
    const into = await newTeam(t, { name: "Folding target" });
    ok(await post(`/teams/${into.id}/import`, { data: doc }, key), 200);
    const labels = ok(await get("/labels?limit=250", key), 200).labels;
    expect(labels.filter((l: { name: string }) => l.name.toLowerCase().includes("οδο")).map((l: { id: string }) => l.id)).toEqual([
      label[GREEK].id,
    ]);
    const imported = ok(await get(`/tasks?filter[eq][teamId]=${into.id}`, key), 200).tasks;
    expect(imported[0].labels.map((l: { id: string }) => l.id)).toEqual([label[GREEK].id]);
  });
});
