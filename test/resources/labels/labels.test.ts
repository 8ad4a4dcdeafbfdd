import { beforeAll, describe, expect, it } from "vitest";
import { del, get, patch, post } from "../../helpers/api";
import { addMember, type Member, newTenant, type Tenant } from "../../helpers/fixtures";
import { walk } from "../../helpers/lists";

describe("labels", () => {
  let t: Tenant;
  let member: Member;
  beforeAll(async () => {
    t = await newTenant("Labels Co");
    member = await addMember(t, "MEMBER");
  });

  it("creates a label: 201, Location, #RRGGBB", async () => {
    const res = await post("/labels", { name: "Bug", color: "#ff0000" }, t.owner.key);
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe(`/labels/${res.body.label.id}`);
    expect(res.body.label).toMatchObject({ name: "Bug", color: "#FF0000" });
    expect(res.body.label.id).toMatch(/^label_[0-9a-z]{26}$/);
    expect(res.queries).toBe(1); // one statement that authenticates itself
  });

  it("rejects a colour that is not #RRGGBB with 422", async () => {
    for (const color of ["red", "#fff", "#GGGGGG", "ff0000", "#ff00001"]) {
      const res = await post("/labels", { name: `c-${color}`, color }, t.owner.key);
      expect(res.status).toBe(422);
      expect(res.body.errors.color).toBeDefined();
    }
  });

  it("keeps names unique per workspace, case-insensitively (409), but not across workspaces", async () => {
    expect((await post("/labels", { name: "Dupe", color: "#000000" }, t.owner.key)).status).toBe(201);
    const again = await post("/labels", { name: "dUPE", color: "#111111" }, member.key);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("CONFLICT");
    const other = await newTenant();
    expect((await post("/labels", { name: "Dupe", color: "#000000" }, other.owner.key)).status).toBe(201);
  });

  it("gets, updates and deletes a label", async () => {
    const { label } = (await post("/labels", { name: "Temp", color: "#123456" }, t.owner.key)).body;
    const read = await get(`/labels/${label.id}`, member.key);
    expect(read.status).toBe(200);
    expect(read.body.label).toEqual(label);
    expect(read.queries).toBeLessThanOrEqual(2);
    const upd = await patch(`/labels/${label.id}`, { name: "Temp2" }, t.owner.key);
    expect(upd.status).toBe(200);
    expect(upd.body.label).toMatchObject({ name: "Temp2", color: "#123456" });
    expect((await del(`/labels/${label.id}`, t.owner.key)).status).toBe(204);
    expect((await get(`/labels/${label.id}`, t.owner.key)).status).toBe(404);
  });

  it("lets any member create a label, but only its creator or a workspace ADMIN/OWNER rename, recolour or delete it (403)", async () => {
    const admin = await addMember(t, "ADMIN");
    const agent = await addMember(t, "MEMBER", "AGENT");
    const { label: owned } = (await post("/labels", { name: "Owners own", color: "#101010" }, t.owner.key)).body;
    for (const who of [member, agent]) {
      const rename = await patch(`/labels/${owned.id}`, { name: "Hijacked" }, who.key);
      expect(rename.status).toBe(403);
      expect(rename.body.error.code).toBe("FORBIDDEN");
      expect((await patch(`/labels/${owned.id}`, { color: "#000001" }, who.key)).status).toBe(403);
      expect((await del(`/labels/${owned.id}`, who.key)).status).toBe(403);
    }
    expect((await get(`/labels/${owned.id}`, member.key)).body.label).toEqual(owned);
    // The creator (here a plain member) and a workspace ADMIN may.
    const mine = await post("/labels", { name: "Member made", color: "#202020" }, member.key);
    expect(mine.status).toBe(201);
    expect((await patch(`/labels/${mine.body.label.id}`, { name: "Member renamed" }, member.key)).status).toBe(200);
    expect((await patch(`/labels/${mine.body.label.id}`, { color: "#303030" }, admin.key)).status).toBe(200);
    expect((await patch(`/labels/${mine.body.label.id}`, { name: "Not yours" }, agent.key)).status).toBe(403);
    expect((await del(`/labels/${mine.body.label.id}`, member.key)).status).toBe(204);
    expect((await del(`/labels/${owned.id}`, admin.key)).status).toBe(204);
    // Another workspace's label is 404, not 403.
    const other = await newTenant();
    const { label: foreign } = (await post("/labels", { name: "Foreign", color: "#404040" }, other.owner.key)).body;
    expect((await patch(`/labels/${foreign.id}`, { name: "x" }, t.owner.key)).status).toBe(404);
    expect((await del(`/labels/${foreign.id}`, member.key)).status).toBe(404);
  });

  it("selects fields on get and list", async () => {
    const { label } = (await post("/labels", { name: "Fields", color: "#abcdef" }, t.owner.key)).body;
    expect((await get(`/labels/${label.id}?fields=id,name`, t.owner.key)).body.label).toEqual({ id: label.id, name: "Fields" });
    const list = await get("/labels?fields=name&limit=2", t.owner.key);
    for (const l of list.body.labels) expect(Object.keys(l)).toEqual(["name"]);
    expect((await get("/labels?fields=nope", t.owner.key)).status).toBe(400);
  });

  it("lists with filters and sorts, every page once", async () => {
    const w = await newTenant();
    for (let i = 0; i < 17; i++) await post("/labels", { name: `L${String(i).padStart(2, "0")}`, color: "#000000" }, w.owner.key);
    const all = await walk("/labels?sort[name]=desc", "labels", w.owner.key, 5);
    expect(all.map((l) => l.name)).toEqual(Array.from({ length: 17 }, (_, i) => `L${String(16 - i).padStart(2, "0")}`));
    const some = await get("/labels?filter[startsWith][name]=l1", w.owner.key);
    expect(some.body.labels).toHaveLength(7);
    expect(some.queries).toBeLessThanOrEqual(2);
    expect((await get("/labels?filter[eq][shape]=x", w.owner.key)).status).toBe(400);
    expect((await get("/labels?sort[shape]=asc", w.owner.key)).status).toBe(400);
    expect((await get("/labels?limit=0", w.owner.key)).status).toBe(422);
  });

  it("hides another workspace's labels (404, never changed)", async () => {
    const other = await newTenant();
    const { label } = (await post("/labels", { name: "Secret", color: "#000000" }, other.owner.key)).body;
    expect((await get(`/labels/${label.id}`, t.owner.key)).status).toBe(404);
    expect((await patch(`/labels/${label.id}`, { name: "Hacked" }, t.owner.key)).status).toBe(404);
    expect((await del(`/labels/${label.id}`, t.owner.key)).status).toBe(404);
    expect((await get(`/labels/${label.id}`, other.owner.key)).body.label.name).toBe("Secret");
  });
});
