// One table walks every work-tracking endpoint with a second workspace's ids — in the path, the query, the
// body and inside arrays — and checks each is NOT_FOUND (or an empty list) and that nothing changed.
import { beforeAll, describe, expect, it } from "vitest";
import { api, get, post } from "./helpers/api";
import { addMember, type Member, newTenant, type Tenant } from "./helpers/fixtures";
import { call } from "./helpers/least-privilege";

interface World {
  tenant: Tenant;
  member: Member;
  team: any;
  team2: any;
  membership: any;
  label: any;
  project: any;
  milestone: any;
  task: any;
  subtask: any;
  comment: any;
  relation: any;
  attachment: any;
  link: any;
}

async function build(name: string, prefix: string): Promise<World> {
  const tenant = await newTenant(name);
  const key = tenant.owner.key;
  const member = await addMember(tenant, "MEMBER");
  const ok = (res: { status: number; body: any }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const team = ok(await post("/teams", { name: `${name} team`, prefix }, key)).team;
  const team2 = ok(await post("/teams", { name: `${name} team 2`, prefix: `${prefix}X` }, key)).team;
  const membership = ok(await post(`/teams/${team.id}/members`, { userId: member.userId, role: "MEMBER" }, key)).teamMember;
  const label = ok(await post("/labels", { name: `${name} label`, color: "#00FF00" }, key)).label;
  const project = ok(await post("/projects", { name: `${name} project`, teamId: team.id, labelIds: [label.id] }, key)).project;
  const milestone = ok(await post("/milestones", { projectId: project.id, name: "M1" }, key)).milestone;
  const task = ok(
    await post(
      "/tasks",
      {
        title: `${name} task`,
        teamId: team.id,
        projectId: project.id,
        milestoneId: milestone.id,
        labelIds: [label.id],
        assigneeId: member.userId,
      },
      key,
    ),
  ).task;
  const subtask = ok(await post("/tasks", { title: "sub", teamId: team.id, parentId: task.id }, key)).task;
  const comment = ok(await post("/comments", { content: "hello", taskId: task.id }, key)).comment;
  const relation = ok(await post(`/tasks/${task.id}/relations`, { type: "blocks", taskId: subtask.id }, key)).relation;
  const attachment = ok(
    await call("POST /tasks/{id}/attachments", `/tasks/${task.id}/attachments?filename=a.txt`, key, "tenancy"),
  ).attachment;
  const link = ok(await post(`/tasks/${task.id}/links`, { url: "https://example.com/tenancy" }, key)).link;
  return { tenant, member, team, team2, membership, label, project, milestone, task, subtask, comment, relation, attachment, link };
}

type Case = [method: string, path: (a: World, b: World) => string, body?: (a: World, b: World) => unknown];

const NOT_FOUND_CASES: Case[] = [
  // teams and team members
  ["GET", (_, b) => `/teams/${b.team.id}`],
  ["PATCH", (_, b) => `/teams/${b.team.id}`, () => ({ name: "pwned" })],
  ["DELETE", (_, b) => `/teams/${b.team.id}`],
  ["GET", (_, b) => `/teams/${b.team.id}/members`],
  ["POST", (_, b) => `/teams/${b.team.id}/members`, (a) => ({ userId: a.member.userId })],
  ["POST", (a) => `/teams/${a.team2.id}/members`, (_, b) => ({ userId: b.member.userId })],
  ["POST", () => "/teams", (_, b) => ({ name: "child", prefix: "CHILDX", parentId: b.team.id })],
  ["PATCH", (a) => `/teams/${a.team2.id}`, (_, b) => ({ parentId: b.team.id })],
  ["GET", (_, b) => `/team-members/${b.membership.id}`],
  ["PATCH", (_, b) => `/team-members/${b.membership.id}`, () => ({ role: "ADMIN" })],
  ["DELETE", (_, b) => `/team-members/${b.membership.id}`],
  // labels
  ["GET", (_, b) => `/labels/${b.label.id}`],
  ["PATCH", (_, b) => `/labels/${b.label.id}`, () => ({ name: "pwned" })],
  ["DELETE", (_, b) => `/labels/${b.label.id}`],
  // tasks: path by id and by reference, and every foreign id a body can carry
  ["GET", (_, b) => `/tasks/${b.task.id}`],
  ["GET", (_, b) => `/tasks/${b.task.reference}`],
  ["GET", (_, b) => `/tasks/${b.task.reference.toLowerCase()}`],
  ["PATCH", (_, b) => `/tasks/${b.task.id}`, () => ({ title: "pwned" })],
  ["PATCH", (_, b) => `/tasks/${b.task.reference}`, () => ({ title: "pwned" })],
  ["DELETE", (_, b) => `/tasks/${b.task.id}`],
  ["DELETE", (_, b) => `/tasks/${b.subtask.reference}`],
  ["GET", (_, b) => `/tasks/${b.task.id}/comments`],
  ["GET", (_, b) => `/tasks/${b.task.reference}/comments`],
  // task relations: the path's task, the body's other task, a relation under either side
  ["GET", (_, b) => `/tasks/${b.task.id}/relations`],
  ["GET", (_, b) => `/tasks/${b.task.reference}/relations`],
  ["POST", (_, b) => `/tasks/${b.task.id}/relations`, (a) => ({ type: "related", taskId: a.task.id })],
  ["POST", (a) => `/tasks/${a.task.id}/relations`, (_, b) => ({ type: "related", taskId: b.task.id })],
  ["POST", (a) => `/tasks/${a.task.id}/relations`, (_, b) => ({ type: "blocked_by", taskId: b.task.reference })],
  ["DELETE", (_, b) => `/tasks/${b.task.id}/relations/${b.relation.id}`],
  ["DELETE", (a, b) => `/tasks/${a.task.id}/relations/${b.relation.id}`],
  // links: the path's task, the link
  ["GET", (_, b) => `/tasks/${b.task.reference}/links`],
  ["POST", (_, b) => `/tasks/${b.task.id}/links`, () => ({ url: "https://example.com/x" })],
  ["POST", (_, b) => `/tasks/${b.task.reference}/links`, (_a, b) => ({ url: b.link.url })],
  ["DELETE", (_, b) => `/links/${b.link.id}`],
  ["POST", () => "/tasks", (_, b) => ({ title: "x", teamId: b.team.id })],
  ["POST", () => "/tasks", (a, b) => ({ title: "x", teamId: a.team.id, projectId: b.project.id })],
  ["POST", () => "/tasks", (a, b) => ({ title: "x", teamId: a.team.id, projectId: b.project.reference })],
  ["POST", () => "/tasks", (a, b) => ({ title: "x", teamId: a.team.id, projectId: a.project.id, milestoneId: b.milestone.id })],
  ["POST", () => "/tasks", (a, b) => ({ title: "x", teamId: a.team.id, parentId: b.task.id })],
  ["POST", () => "/tasks", (a, b) => ({ title: "x", teamId: a.team.id, assigneeId: b.member.userId })],
  ["POST", () => "/tasks", (a, b) => ({ title: "x", teamId: a.team.id, labelIds: [a.label.id, b.label.id] })],
  ["PATCH", (a) => `/tasks/${a.task.id}`, (_, b) => ({ projectId: b.project.id })],
  ["PATCH", (a) => `/tasks/${a.task.id}`, (_, b) => ({ milestoneId: b.milestone.id })],
  ["PATCH", (a) => `/tasks/${a.task.id}`, (_, b) => ({ parentId: b.task.id })],
  ["PATCH", (a) => `/tasks/${a.task.id}`, (_, b) => ({ assigneeId: b.member.userId })],
  ["PATCH", (a) => `/tasks/${a.task.id}`, (a, b) => ({ labelIds: [a.label.id, b.label.id] })],
  // projects and milestones
  ["GET", (_, b) => `/projects/${b.project.id}`],
  ["GET", (_, b) => `/projects/${b.project.reference}`],
  ["PATCH", (_, b) => `/projects/${b.project.id}`, () => ({ name: "pwned" })],
  ["DELETE", (_, b) => `/projects/${b.project.reference}`],
  ["GET", (_, b) => `/projects/${b.project.id}/comments`],
  ["POST", (_, b) => `/projects/${b.project.id}/comments`, () => ({ content: "pwned" })],
  ["GET", (_, b) => `/projects/${b.project.id}/milestones`],
  ["POST", () => "/projects", (_, b) => ({ name: "x", teamId: b.team.id })],
  ["POST", () => "/projects", (a, b) => ({ name: "x", teamId: a.team.id, leadId: b.member.userId })],
  ["POST", () => "/projects", (a, b) => ({ name: "x", teamId: a.team.id, labelIds: [b.label.id] })],
  ["PATCH", (a) => `/projects/${a.project.id}`, (_, b) => ({ leadId: b.member.userId })],
  ["PATCH", (a) => `/projects/${a.project.id}`, (_, b) => ({ labelIds: [b.label.id] })],
  ["POST", () => "/milestones", (_, b) => ({ projectId: b.project.id, name: "x" })],
  ["POST", () => "/milestones", (_, b) => ({ projectId: b.project.reference, name: "x" })],
  ["GET", (_, b) => `/milestones/${b.milestone.id}`],
  ["PATCH", (_, b) => `/milestones/${b.milestone.id}`, () => ({ name: "pwned" })],
  ["DELETE", (_, b) => `/milestones/${b.milestone.id}`],
  ["GET", (_, b) => `/milestones/${b.milestone.id}/comments`],
  // comments
  ["POST", () => "/comments", (_, b) => ({ content: "x", taskId: b.task.id })],
  ["POST", () => "/comments", (_, b) => ({ content: "x", taskId: b.task.reference })],
  ["POST", () => "/comments", (_, b) => ({ content: "x", projectId: b.project.id })],
  ["POST", () => "/comments", (_, b) => ({ content: "x", milestoneId: b.milestone.id })],
  ["GET", (_, b) => `/comments/${b.comment.id}`],
  ["PATCH", (_, b) => `/comments/${b.comment.id}`, () => ({ content: "pwned" })],
  ["DELETE", (_, b) => `/comments/${b.comment.id}`],
  // attachments
  ["POST", (_, b) => `/tasks/${b.task.id}/attachments?filename=x.txt`, () => ({ file: "x" })],
  ["POST", (_, b) => `/comments/${b.comment.id}/attachments?filename=x.txt`, () => ({ file: "x" })],
  ["GET", (_, b) => `/tasks/${b.task.reference}/attachments`],
  ["GET", (_, b) => `/attachments/${b.attachment.id}`],
  ["GET", (_, b) => `/attachments/${b.attachment.id}/content`],
  ["DELETE", (_, b) => `/attachments/${b.attachment.id}`],
];

/** Lists filtered by a foreign id answer an empty page, never the other workspace's rows. */
const EMPTY_LIST_CASES: Array<[string, string, (b: World) => string]> = [
  ["/tasks?filter[eq][teamId]=", "tasks", (b) => b.team.id],
  ["/tasks?filter[eq][projectId]=", "tasks", (b) => b.project.id],
  ["/tasks?filter[eq][assigneeId]=", "tasks", (b) => b.member.userId],
  ["/tasks?filter[eq][id]=", "tasks", (b) => b.task.id],
  ["/tasks?filter[eq][relatedTo]=", "tasks", (b) => b.task.id],
  ["/projects?filter[eq][teamId]=", "projects", (b) => b.team.id],
  ["/milestones?filter[eq][projectId]=", "milestones", (b) => b.project.id],
  ["/comments?filter[eq][taskId]=", "comments", (b) => b.task.id],
  ["/teams?filter[eq][id]=", "teams", (b) => b.team.id],
  ["/labels?filter[eq][id]=", "labels", (b) => b.label.id],
];

describe("tenancy: another workspace's ids are NOT_FOUND everywhere", () => {
  let a: World;
  let b: World;
  let snapshot: Record<string, unknown>;
  const readAll = async (w: World) => {
    const key = w.tenant.owner.key;
    const paths = [
      `/teams/${w.team.id}`,
      `/teams/${w.team2.id}`,
      `/team-members/${w.membership.id}`,
      `/labels/${w.label.id}`,
      `/projects/${w.project.id}`,
      `/milestones/${w.milestone.id}`,
      `/tasks/${w.task.id}`,
      `/tasks/${w.subtask.id}`,
      `/comments/${w.comment.id}`,
      `/tasks/${w.task.id}/comments`,
      `/tasks/${w.task.id}/relations`,
      `/tasks/${w.task.id}/attachments`,
      `/attachments/${w.attachment.id}`,
      `/tasks/${w.task.id}/links`,
      `/projects/${w.project.id}/milestones`,
    ];
    const out: Record<string, unknown> = {};
    for (const p of paths) {
      const res = await get(p, key);
      expect(res.status, p).toBe(200);
      out[p] = res.body;
    }
    return out;
  };

  beforeAll(async () => {
    // Distinct prefixes: a reference must never resolve across workspaces, even when prefixes match,
    // so B also gets a team whose prefix equals none of A's.
    a = await build("Alpha", `AL${Date.now() % 1000}`);
    b = await build("Bravo", `BR${Date.now() % 1000}`);
    snapshot = await readAll(b);
  });

  it.each(NOT_FOUND_CASES.map((c, i) => [i, ...c] as const))("case %i: %s", async (_i, method, path, body) => {
    const res = await api(method, path(a, b), { key: a.tenant.owner.key, body: body?.(a, b) });
    expect(res.status, `${method} ${path(a, b)} → ${JSON.stringify(res.body)}`).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
  });

  it.each(EMPTY_LIST_CASES)("list %s<foreign id> is empty", async (prefix, key, id) => {
    const res = await get(`${prefix}${id(b)}`, a.tenant.owner.key);
    expect(res.status).toBe(200);
    expect(res.body[key]).toEqual([]);
  });

  it("a reference resolves within the caller's workspace only, even with the same prefix", async () => {
    const c = await newTenant("Charlie");
    const team = (await post("/teams", { name: "same", prefix: b.team.prefix }, c.owner.key)).body.team;
    const mine = (await post("/tasks", { title: "mine", teamId: team.id }, c.owner.key)).body.task;
    expect(mine.reference).toBe(`${b.team.prefix}-1`);
    const res = await get(`/tasks/${b.team.prefix}-1`, c.owner.key);
    expect(res.status).toBe(200);
    expect(res.body.task.id).toBe(mine.id);
    expect(res.body.task.id).not.toBe(b.task.id);
  });

  it("changed nothing in the other workspace", async () => {
    expect(await readAll(b)).toEqual(snapshot);
  });
});
