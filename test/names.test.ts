// Names (docs/api.md, "Ids and names"): wherever a request names a record it takes the id or the human name (a task `ENG-12`, a project `ENG-P3`,
// a team its prefix, a label its name in any case, a user their email). The walk goes over EVERY filterable id field of
// every list (the specs themselves say which, so a new one without an entry here fails): by id, by name (the same rows),
// an unknown name (an empty list, as an unknown id) and a value of neither form (400 naming the field); then every body
// field and path that names a record.
import { beforeAll, describe, expect, it } from "vitest";
import { fieldRecord } from "../src/records/fields";
import { activityRecord, sessionRecord } from "../src/resources/agent-sessions/record";
import { apiKeyRecord } from "../src/resources/api-keys/record";
import { commentRecord, targetCommentLists } from "../src/resources/comments/record";
import { cycleRecord } from "../src/resources/cycles/record";
import { inviteRecord } from "../src/resources/invites/record";
import { labelRecord } from "../src/resources/labels/record";
import { milestoneRecord } from "../src/resources/milestones/record";
import { projectRecord } from "../src/resources/projects/record";
import { taskRecord } from "../src/resources/tasks/record";
import { teamMemberItemRecord } from "../src/resources/team-members/record";
import { teamRecord } from "../src/resources/teams/record";
import { workspaceUserRecord } from "../src/resources/users/record";
import { deliveryRecord, webhookRecord } from "../src/resources/webhooks/record";
import { workspaceRecord } from "../src/resources/workspaces/record";
import type { ListSpec } from "../src/store/list";
import { api, get, patch, post } from "./helpers/api";
import { addMember, type Member, newTeam, newTenant, type TeamFixture, type Tenant } from "./helpers/fixtures";

let t: Tenant;
let team: TeamFixture;
let member: Member;
const r: Record<string, any> = {};

const ok = (res: { status: number; body: any }, status = 201) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
};

beforeAll(async () => {
  t = await newTenant("Names");
  team = await newTeam(t, { name: "Names" });
  member = await addMember(t, "MEMBER");
  const key = t.owner.key;
  r.sub = ok(await post("/teams", { name: "Sub", prefix: `S${team.prefix.slice(1, 9)}`, parentId: team.id }, key)).team;
  r.membership = ok(await post(`/teams/${team.id}/members`, { userId: member.userId }, key)).teamMember;
  r.label = ok(await post("/labels", { name: "Needs Review", color: "#112233" }, key)).label;
  r.project = ok(await post("/projects", { name: "P", teamId: team.id, leadId: member.userId, labelIds: [r.label.id] }, key)).project;
  r.milestone = ok(await post("/milestones", { projectId: r.project.id, name: "M" }, key)).milestone;
  r.parent = ok(await post("/tasks", { title: "Parent", teamId: team.id }, key)).task;
  const day = 86_400_000;
  r.cycle = ok(
    await post(
      "/cycles",
      { teamId: team.id, startsAt: new Date(Date.now() - day).toISOString(), endsAt: new Date(Date.now() + 6 * day).toISOString() },
      key,
    ),
  ).cycle;
  r.task = ok(
    await post(
      "/tasks",
      {
        title: "Child",
        teamId: team.id,
        parentId: r.parent.id,
        projectId: r.project.id,
        milestoneId: r.milestone.id,
        assigneeId: member.userId,
        labelIds: [r.label.id],
        cycleId: r.cycle.id,
      },
      key,
    ),
  ).task;
  r.relation = ok(await post(`/tasks/${r.task.id}/relations`, { type: "related", taskId: r.parent.id }, key)).relation;
  r.comment = ok(await post("/comments", { taskId: r.parent.id, content: "On the parent" }, key)).comment;
  r.projectComment = ok(await post("/comments", { projectId: r.project.id, content: "On the project" }, key)).comment;
  r.milestoneComment = ok(await post("/comments", { milestoneId: r.milestone.id, content: "On the milestone" }, key)).comment;
  r.field = ok(await post("/fields", { key: "size", name: "Size", type: "number", recordTypes: ["task"] }, key)).field;
  r.apiKey = ok(await post("/api-keys", { name: "walk" }, key)).apiKey;
  r.invite = ok(await post("/invites", { email: "invited-names@example.com", role: "MEMBER" }, key)).invite;
  r.agent = ok(await post("/agents", { name: "Names bot" }, key)).agent;
  r.agentEmail = ok(await get("/me", r.agent.apiKey), 200).user.email;
  r.session = ok(await patch(`/tasks/${r.task.id}`, { delegateId: r.agent.id }, key), 200).task.session;
  r.webhook = ok(await post("/webhooks", { url: "https://hooks.example.com/names", events: ["task.*"] }, key)).webhook;
  // Another workspace with a team of the same prefix and a label of the same name: a name resolves in the caller's only.
  const other = await newTenant("Names elsewhere");
  await newTeam(other, { prefix: team.prefix });
  await post("/labels", { name: "Needs Review", color: "#112233" }, other.owner.key);
});

/** A value of the right form that names nothing, per kind. */
const UNKNOWN: Record<string, string> = {
  task: "ZQZ9-999999",
  project: "ZQZ9-P99999",
  cycle: "ZQZ9-C99999",
  team: "ZQZ9",
  label: "no label of this name",
  user: "nobody-at-all@example.com",
};
/** A value of neither form: a label's name may be anything of 1..100 characters. */
const malformed = (kind: string) => (kind === "label" ? "x".repeat(101) : "hello world");

/** `none`: the list has no row with such a value (a task's comments are on no project), so by id it is empty too. */
type Entry = { kind: string; id: () => string; name?: () => string; none?: true };
/** Every list with the filterable id fields its spec declares, each with a value that names a record the list has. */
const LISTS: Array<{ path: () => string; key: string; spec: ListSpec; fields: Record<string, Entry> }> = [
  {
    path: () => "/tasks",
    key: "tasks",
    spec: taskRecord.list,
    fields: {
      id: { kind: "task", id: () => r.task.id, name: () => r.task.reference.toLowerCase() },
      teamId: { kind: "team", id: () => team.id, name: () => team.prefix.toLowerCase() },
      projectId: { kind: "project", id: () => r.project.id, name: () => r.project.reference },
      milestoneId: { kind: "milestone", id: () => r.milestone.id },
      parentId: { kind: "task", id: () => r.parent.id, name: () => r.parent.reference },
      assigneeId: { kind: "user", id: () => member.userId, name: () => member.email.toUpperCase() },
      delegateId: { kind: "user", id: () => r.agent.id, name: () => r.agentEmail },
      labelId: { kind: "label", id: () => r.label.id, name: () => "needs REVIEW" },
      relatedTo: { kind: "task", id: () => r.parent.id, name: () => r.parent.reference },
      cycleId: { kind: "cycle", id: () => r.cycle.id, name: () => r.cycle.reference.toLowerCase() },
    },
  },
  {
    path: () => "/cycles",
    key: "cycles",
    spec: cycleRecord.list,
    fields: {
      id: { kind: "cycle", id: () => r.cycle.id, name: () => r.cycle.reference },
      teamId: { kind: "team", id: () => team.id, name: () => team.prefix },
    },
  },
  {
    path: () => "/projects",
    key: "projects",
    spec: projectRecord.list,
    fields: {
      id: { kind: "project", id: () => r.project.id, name: () => r.project.reference },
      teamId: { kind: "team", id: () => team.id, name: () => team.prefix },
      leadId: { kind: "user", id: () => member.userId, name: () => member.email },
      labelId: { kind: "label", id: () => r.label.id, name: () => "Needs Review" },
    },
  },
  {
    path: () => "/milestones",
    key: "milestones",
    spec: milestoneRecord.list,
    fields: {
      id: { kind: "milestone", id: () => r.milestone.id },
      projectId: { kind: "project", id: () => r.project.id, name: () => r.project.reference },
    },
  },
  {
    path: () => "/comments",
    key: "comments",
    spec: commentRecord.list,
    fields: {
      id: { kind: "comment", id: () => r.comment.id },
      authorId: { kind: "user", id: () => t.owner.userId, name: () => t.owner.email },
      taskId: { kind: "task", id: () => r.parent.id, name: () => r.parent.reference },
      projectId: { kind: "project", id: () => r.project.id, name: () => r.project.reference },
      milestoneId: { kind: "milestone", id: () => r.milestoneComment.milestoneId },
    },
  },
  {
    path: () => `/tasks/${r.parent.reference}/comments`,
    key: "comments",
    spec: targetCommentLists.task,
    fields: {
      id: { kind: "comment", id: () => r.comment.id },
      authorId: { kind: "user", id: () => t.owner.userId, name: () => t.owner.email },
      taskId: { kind: "task", id: () => r.parent.id, name: () => r.parent.reference },
      projectId: { kind: "project", id: () => r.project.id, name: () => r.project.reference, none: true },
      milestoneId: { kind: "milestone", id: () => r.milestone.id, none: true },
    },
  },
  {
    path: () => "/teams",
    key: "teams",
    spec: teamRecord.list,
    fields: {
      id: { kind: "team", id: () => team.id, name: () => team.prefix },
      parentId: { kind: "team", id: () => team.id, name: () => team.prefix.toLowerCase() },
    },
  },
  {
    path: () => `/teams/${team.prefix}/members`,
    key: "members",
    spec: teamMemberItemRecord.list,
    fields: {
      id: { kind: "user", id: () => member.userId, name: () => member.email },
      membershipId: { kind: "teamMember", id: () => r.membership.id },
    },
  },
  {
    path: () => "/labels",
    key: "labels",
    spec: labelRecord.list,
    fields: { id: { kind: "label", id: () => r.label.id, name: () => "needs review" } },
  },
  {
    path: () => "/users",
    key: "users",
    spec: workspaceUserRecord.list,
    fields: {
      id: { kind: "user", id: () => member.userId, name: () => member.email },
      humanId: { kind: "user", id: () => t.owner.userId, name: () => t.owner.email },
    },
  },
  {
    path: () => "/api-keys",
    key: "api_keys",
    spec: apiKeyRecord.list,
    fields: {
      id: { kind: "apiKey", id: () => r.apiKey.id },
      userId: { kind: "user", id: () => t.owner.userId, name: () => t.owner.email },
    },
  },
  { path: () => "/fields", key: "fields", spec: fieldRecord.list, fields: { id: { kind: "field", id: () => r.field.id } } },
  { path: () => "/invites", key: "invites", spec: inviteRecord.list, fields: { id: { kind: "invite", id: () => r.invite.id } } },
  { path: () => "/webhooks", key: "webhooks", spec: webhookRecord.list, fields: { id: { kind: "webhook", id: () => r.webhook.id } } },
  {
    path: () => `/webhooks/${r.webhook.id}/deliveries`,
    key: "deliveries",
    spec: deliveryRecord.list,
    fields: { id: { kind: "delivery", id: () => "dlv_01h00000000000000000000000", none: true } },
  },
  {
    path: () => "/agent-sessions",
    key: "sessions",
    spec: sessionRecord.list,
    fields: {
      id: { kind: "agentSession", id: () => r.session.id },
      taskId: { kind: "task", id: () => r.task.id, name: () => r.task.reference },
      agentId: { kind: "user", id: () => r.agent.id, name: () => r.agentEmail },
    },
  },
  {
    path: () => `/agent-sessions/${r.session.id}/activities`,
    key: "activities",
    spec: activityRecord.list,
    fields: { id: { kind: "agentActivity", id: () => "act_01h00000000000000000000000", none: true } },
  },
  {
    path: () => "/workspaces",
    key: "workspaces",
    spec: workspaceRecord.list,
    fields: { id: { kind: "workspace", id: () => t.workspaceId } },
  },
];

const list = async (path: string, query: string) => {
  const res = await get(`${path}?${query}&limit=250`, t.owner.key);
  return res;
};

describe("every filterable id field takes the id or the name", () => {
  it("the walk covers every filterable id field of every list", () => {
    for (const { path, spec, fields } of LISTS) {
      const named = Object.entries(spec.fields)
        .filter(([, field]) => field.names && field.filter !== false)
        .map(([name]) => name)
        .sort();
      expect(Object.keys(fields).sort(), path()).toEqual(named);
    }
  });

  const cases = LISTS.flatMap((l) => Object.entries(l.fields).map(([field, entry]) => ({ l, field, entry })));
  it.each(cases.map((c) => [`${c.l.path.toString().slice(7, 40)} ${c.field}`, c]))("%s", async (_, { l, field, entry }) => {
    const path = l.path();
    const ids = (res: { body: any }) => res.body[l.key].map((x: any) => x.membershipId ?? x.id).sort();
    const byId = await list(path, `filter[eq][${field}]=${encodeURIComponent(entry.id())}`);
    expect(byId.status, JSON.stringify(byId.body)).toBe(200);
    if (!entry.none) expect(ids(byId).length, `${path} ${field} by id`).toBeGreaterThan(0);
    if (entry.name) {
      const name = entry.name();
      for (const op of ["eq", "in"]) {
        const byName = await list(path, `filter[${op}][${field}]=${encodeURIComponent(name)}`);
        expect([byName.status, ids(byName)], `${path} ${op} ${field}=${name}`).toEqual([200, ids(byId)]);
      }
      // neq by name is neq by id.
      const neqName = await list(path, `filter[neq][${field}]=${encodeURIComponent(name)}`);
      const neqId = await list(path, `filter[neq][${field}]=${encodeURIComponent(entry.id())}`);
      expect(ids(neqName), `${path} neq ${field}`).toEqual(ids(neqId));
      const unknown = await list(path, `filter[eq][${field}]=${encodeURIComponent(UNKNOWN[entry.kind])}`);
      expect([unknown.status, unknown.body[l.key]], `${path} ${field} unknown name`).toEqual([200, []]);
    }
    const unknownId = await list(path, `filter[eq][${field}]=${entry.kind.slice(0, 4).toLowerCase()}_01h00000000000000000000000`);
    expect([unknownId.status, unknownId.body[l.key]], `${path} ${field} unknown id`).toEqual([200, []]);
    const bad = await list(path, `filter[eq][${field}]=${encodeURIComponent(malformed(entry.kind))}`);
    expect([bad.status, bad.body.error?.code, bad.body.error?.details?.field], `${path} ${field} malformed`).toEqual([
      400,
      "BAD_REQUEST",
      field,
    ]);
    expect(bad.body.error.message).toContain("expected");
  });

  it("a name resolves in the caller's workspace only (another has the same team prefix and label name)", async () => {
    const tasks = await list("/tasks", `filter[eq][teamId]=${team.prefix}&filter[eq][labelId]=needs%20review`);
    expect(tasks.body.tasks.map((x: any) => x.id)).toEqual([r.task.id]);
    // The body's name for the labels (labelIds) is not a filter: the 400 says which name filters them.
    const plural = await list("/tasks", "filter[eq][labelIds]=needs%20review");
    expect([plural.status, plural.body.error.details.field]).toEqual([400, "labelIds"]);
    expect(plural.body.error.message).toBe(
      "Unknown filter field 'labelIds': filter on 'labelId' (one value; filter[in][labelId] for any of several)",
    );
  });

  it("GET /tasks?filter[eq][parentId]=<reference> answers the sub-tasks (the issue's example)", async () => {
    const subtasks = await list("/tasks", `filter[eq][parentId]=${r.parent.reference}`);
    expect(subtasks.body.tasks.map((x: any) => x.id)).toEqual([r.task.id]);
    const notReference = await list("/tasks", "filter[in][reference]=ENG-1&filter[in][reference]=junk");
    expect([notReference.status, notReference.body.error.details.field]).toEqual([400, "reference"]);
    const bad = await list("/tasks", "filter[eq][parentId]=hello%20world");
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual({ field: "parentId", expected: "a task id (`task_…`) or its reference (`ENG-12`)" });
  });
});

describe("every body field and path that names a record takes the id or the name", () => {
  it("POST /tasks: a team prefix, project and parent references, a milestone id, an email, label names in any case", async () => {
    const body = {
      title: "By names",
      teamId: team.prefix.toLowerCase(),
      projectId: r.project.reference,
      milestoneId: r.milestone.id,
      parentId: r.parent.reference.toLowerCase(),
      assigneeId: member.email.toUpperCase(),
      labelIds: ["NEEDS review"],
    };
    const task = ok(await post("/tasks", body, t.owner.key)).task;
    expect([task.teamId, task.projectId, task.milestoneId, task.parentId, task.assigneeId, task.labels.map((l: any) => l.id)]).toEqual([
      team.id,
      r.project.id,
      r.milestone.id,
      r.parent.id,
      member.userId,
      [r.label.id],
    ]);
    const changed = ok(
      await patch(`/tasks/${task.reference}`, { assigneeId: t.owner.email, labelIds: [r.label.id, "needs review"] }, t.owner.key),
      200,
    );
    expect([changed.task.assigneeId, changed.task.labels.length]).toEqual([t.owner.userId, 1]);
  });

  it("POST /projects, /milestones, /comments, /teams and /teams/{prefix}/members take names", async () => {
    const project = ok(
      await post("/projects", { name: "Named", teamId: team.prefix, leadId: member.email, labelIds: ["needs review"] }, t.owner.key),
    ).project;
    expect([project.teamId, project.leadId]).toEqual([team.id, member.userId]);
    const milestone = ok(await post("/milestones", { projectId: project.reference.toLowerCase(), name: "Named" }, t.owner.key)).milestone;
    expect(milestone.projectId).toBe(project.id);
    const comment = ok(await post("/comments", { taskId: r.task.reference, content: "By reference" }, t.owner.key)).comment;
    expect(comment.taskId).toBe(r.task.id);
    const sub = ok(
      await post("/teams", { name: "Named sub", prefix: `N${team.prefix.slice(1, 9)}`, parentId: team.prefix }, t.owner.key),
    ).team;
    expect(sub.parentId).toBe(team.id);
    const newcomer = await addMember(t, "MEMBER");
    const joined = ok(await post(`/teams/${sub.prefix.toLowerCase()}/members`, { userId: newcomer.email }, t.owner.key)).teamMember;
    expect([joined.teamId, joined.userId]).toEqual([sub.id, newcomer.userId]);
    expect(ok(await get(`/teams/${team.prefix.toLowerCase()}`, t.owner.key), 200).team.id).toBe(team.id);
    expect(ok(await get("/labels/needs%20REVIEW", t.owner.key), 200).label.id).toBe(r.label.id);
    expect((await get("/labels/no%20such%20label", t.owner.key)).status).toBe(404);
    // Exports name their root by id or name as well.
    const exported = ok(await get(`/teams/${team.prefix.toLowerCase()}/export`, t.owner.key), 200);
    expect(exported.data.teams.map((x: any) => x.id)).toContain(team.id);
    expect(ok(await get(`/tasks/${r.parent.reference}/export`, t.owner.key), 200).data.root).toBe(r.parent.id);
    expect((await get("/teams/ZQZ9/export", t.owner.key)).status).toBe(404);
    const moved = ok(await patch(`/teams/${sub.prefix}`, { parentId: r.sub.prefix }, t.owner.key), 200).team;
    expect(moved.parentId).toBe(r.sub.id);
  });

  // [method, path, body, field]: a name of the right form naming nothing is 404; a value of neither form 422 at the field.
  const BODIES: Array<[string, () => string, (v: string) => object, string, string]> = [
    ["POST", () => "/tasks", (v) => ({ title: "x", teamId: v }), "teamId", "team"],
    ["POST", () => "/tasks", (v) => ({ title: "x", teamId: team.id, projectId: v }), "projectId", "project"],
    ["POST", () => "/tasks", (v) => ({ title: "x", teamId: team.id, parentId: v }), "parentId", "task"],
    ["POST", () => "/tasks", (v) => ({ title: "x", teamId: team.id, assigneeId: v }), "assigneeId", "user"],
    ["POST", () => "/tasks", (v) => ({ title: "x", teamId: team.id, labelIds: [v] }), "labelIds.0", "label"],
    ["POST", () => "/tasks", (v) => ({ title: "x", teamId: team.id, milestoneId: v }), "milestoneId", "milestone"],
    ["PATCH", () => `/tasks/${r.task.id}`, (v) => ({ parentId: v }), "parentId", "task"],
    ["PATCH", () => `/tasks/${r.task.id}`, (v) => ({ assigneeId: v }), "assigneeId", "user"],
    ["POST", () => "/projects", (v) => ({ name: "x", teamId: v }), "teamId", "team"],
    ["POST", () => "/projects", (v) => ({ name: "x", teamId: team.id, leadId: v }), "leadId", "user"],
    ["POST", () => "/milestones", (v) => ({ name: "x", projectId: v }), "projectId", "project"],
    ["POST", () => "/comments", (v) => ({ content: "x", taskId: v }), "taskId", "task"],
    ["POST", () => "/comments", (v) => ({ content: "x", projectId: v }), "projectId", "project"],
    ["POST", () => "/teams", (v) => ({ name: "x", prefix: "ZQZQZ", parentId: v }), "parentId", "team"],
    ["POST", () => `/teams/${team.id}/members`, (v) => ({ userId: v }), "userId", "user"],
    ["POST", () => "/invites", (v) => ({ email: "names-unknown-team@example.com", teamIds: [v] }), "teamIds.0", "team"],
    ["POST", () => "/api-keys", (v) => ({ name: "x", teamIds: [team.id, v] }), "teamIds.1", "team"],
    ["POST", () => "/agents", (v) => ({ name: "x", teamIds: [v] }), "teamIds.0", "team"],
    ["POST", () => "/webhooks", (v) => ({ url: "https://hooks.example.com/x", events: ["*"], teamIds: [v] }), "teamIds.0", "team"],
    ["PATCH", () => `/webhooks/${r.webhook.id}`, (v) => ({ teamIds: [v] }), "teamIds.0", "team"],
  ];
  it.each(BODIES)("%s %s %s: unknown name 404, malformed 422", async (method, path, body, field, kind) => {
    if (UNKNOWN[kind]) {
      const unknown = await api(method, path(), { key: t.owner.key, body: body(UNKNOWN[kind]) });
      expect([unknown.status, unknown.body.error?.code], JSON.stringify(unknown.body)).toEqual([404, "NOT_FOUND"]);
    }
    const bad = await api(method, path(), { key: t.owner.key, body: body(malformed(kind)) });
    expect([bad.status, Object.keys(bad.body.errors ?? {})], JSON.stringify(bad.body)).toEqual([422, [field]]);
  });

  it("teamIds take team prefixes in any case, stored and answered as ids: invites, API keys, agents, webhooks", async () => {
    const key = t.owner.key;
    const invite = ok(
      await post("/invites", { email: "names-by-prefix@example.com", teamIds: [team.prefix.toLowerCase(), team.id, r.sub.prefix] }, key),
    ).invite;
    expect(invite.teamIds).toEqual([team.id, r.sub.id]);
    const made = ok(await post("/api-keys", { name: "by prefix", teamIds: [r.sub.prefix.toLowerCase()] }, key));
    expect(made.apiKey.teamIds).toEqual([r.sub.id]);
    expect(ok(await get("/me", made.key), 200).teamIds).toEqual([r.sub.id]);
    const agent = ok(await post("/agents", { name: "By prefix", teamIds: [team.prefix] }, key)).agent;
    expect(ok(await get("/me", agent.apiKey), 200).teamIds).toEqual([team.id]);
    const webhook = ok(
      await post("/webhooks", { url: "https://hooks.example.com/by-prefix", events: ["*"], teamIds: [team.prefix.toLowerCase()] }, key),
    ).webhook;
    expect(webhook.teamIds).toEqual([team.id]);
    const patched = ok(await patch(`/webhooks/${webhook.id}`, { teamIds: [r.sub.prefix, team.prefix, team.id] }, key), 200).webhook;
    expect(patched.teamIds).toEqual([r.sub.id, team.id]);
    expect(ok(await get(`/webhooks/${webhook.id}`, key), 200).webhook.teamIds).toEqual([r.sub.id, team.id]);
  });

  it("a credential bound to teams grants and invites by prefix only within its teams (another team's prefix is 404)", async () => {
    const bound = ok(await post("/api-keys", { name: "bound by prefix", teamIds: [team.prefix] }, t.owner.key)).key;
    expect(ok(await post("/api-keys", { name: "narrower", teamIds: [team.prefix.toLowerCase()] }, bound)).apiKey.teamIds).toEqual([
      team.id,
    ]);
    for (const [path, body] of [
      ["/api-keys", { name: "wider", teamIds: [r.sub.prefix] }],
      ["/agents", { name: "wider", teamIds: [team.prefix, r.sub.prefix] }],
      ["/invites", { email: "names-bound-wider@example.com", teamIds: [r.sub.prefix] }],
    ] as const) {
      const res = await post(path, body, bound);
      expect([res.status, res.body.error?.code], `${path} ${JSON.stringify(res.body)}`).toEqual([404, "NOT_FOUND"]);
    }
  });

  it("imports name their team by prefix: POST /teams/{prefix}/import and POST /imports {teamId: prefix}", async () => {
    const key = t.owner.key;
    const doc = ok(await get(`/tasks/${r.parent.reference}/export`, key), 200);
    const direct = ok(await post(`/teams/${team.prefix.toLowerCase()}/import`, { data: doc, update: false }, key), 200);
    expect(direct.imported.id).toBe(team.id);
    expect((await post("/teams/ZQZ9/import", { data: doc }, key)).status).toBe(404);
    const opened = ok(await post("/imports", { teamId: team.prefix.toLowerCase() }, key)).import;
    expect(opened.teamId).toBe(team.id);
    ok(await api("PUT", `/imports/${opened.id}/parts/1`, { key, body: { data: doc } }), 200);
    expect(ok(await post(`/imports/${opened.id}/commit`, {}, key), 200).imported.id).toBe(team.id);
    const unknown = await post("/imports", { teamId: UNKNOWN.team }, key);
    expect([unknown.status, unknown.body.error?.code]).toEqual([404, "NOT_FOUND"]);
    const bad = await post("/imports", { teamId: malformed("team") }, key);
    expect([bad.status, Object.keys(bad.body.errors ?? {})]).toEqual([422, ["teamId"]]);
    // A credential bound to another team finds this one by neither id nor prefix.
    const bound = ok(await post("/api-keys", { name: "bound to sub", teamIds: [r.sub.id] }, key)).key;
    for (const res of [
      await post(`/teams/${team.prefix}/import`, { data: doc }, bound),
      await post("/imports", { teamId: team.prefix }, bound),
    ])
      expect([res.status, res.body.error?.code]).toEqual([404, "NOT_FOUND"]);
  });

  it("a custom field of type user takes an email (stored as the id), and so does a filter on it", async () => {
    const key = t.owner.key;
    ok(await post("/fields", { key: "reviewer", name: "Reviewer", type: "user", recordTypes: ["task"] }, key));
    const task = ok(
      await post("/tasks", { title: "Reviewed", teamId: team.id, customFields: { reviewer: member.email.toUpperCase() } }, key),
    ).task;
    expect(task.customFields.reviewer).toBe(member.userId);
    const other = ok(
      await post("/tasks", { title: "Reviewed by id", teamId: team.id, customFields: { reviewer: t.owner.userId } }, key),
    ).task;
    expect(other.customFields.reviewer).toBe(t.owner.userId);
    const by = async (query: string) => {
      const res = await list("/tasks", `${query}&filter[eq][teamId]=${team.id}`);
      return [res.status, res.body.tasks?.map((x: any) => x.id) ?? res.body.error?.details?.field];
    };
    expect(await by(`filter[eq][customFields.reviewer]=${encodeURIComponent(member.email)}`)).toEqual([200, [task.id]]);
    expect(await by(`filter[eq][customFields.reviewer]=${member.userId}`)).toEqual([200, [task.id]]);
    expect(
      await by(
        `filter[in][customFields.reviewer]=${encodeURIComponent(member.email)}&filter[in][customFields.reviewer]=${encodeURIComponent(t.owner.email)}`,
      ),
    ).toEqual([200, [task.id, other.id]]);
    expect(await by(`filter[eq][customFields.reviewer]=${UNKNOWN.user}`)).toEqual([200, []]);
    expect(await by("filter[eq][customFields.reviewer]=hello%20world")).toEqual([400, "customFields.reviewer"]);
    for (const value of [UNKNOWN.user, "hello world"]) {
      const bad = await post("/tasks", { title: "x", teamId: team.id, customFields: { reviewer: value } }, key);
      expect([bad.status, Object.keys(bad.body.errors ?? {})], value).toEqual([422, ["customFields.reviewer"]]);
    }
    const changed = ok(await patch(`/tasks/${other.id}`, { customFields: { reviewer: member.email } }, key), 200).task;
    expect(changed.customFields.reviewer).toBe(member.userId);
  });
});
