// Least privilege, walked over the served OpenAPI document (docs/api.md, least privilege).
//
// The scope walk: every authenticated operation with an `x-required-scope` is called by a key of the workspace OWNER
// that has every scope but that one (403 naming it, also with an invalid body or query: the scope comes before
// validation; nothing written), by a key no workspace knows (401), and by a key that has only that scope (it succeeds:
// an operation needs no scope but its own). An operation of the document that is in neither the table nor the
// exclusions fails the walk.
//
// The team-bound walk: a key of the OWNER with every scope, bound to team A, on each operation whose path (or body)
// names a record of team B: 404 as if it did not exist, nothing written; the same on team A succeeds. A document path
// with `{id}` that is neither walked nor excluded as workspace-wide fails the walk.
//
// Both walks run their operations concurrently (each on records of its own), so "nothing written" is checked by
// request: every request a walk expects refused carries a request id of its own (`lp-refused-…`, `lp-outside-…`), which
// the events of anything it wrote would carry; after both walks the workspace's whole stream (GET /events with an
// unrestricted key) must hold none of them. A refused operation that writes no tracked record (a webhook ping or
// redelivery) has the rows it would write counted before and after instead.
import { eq, type SQL, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { oauthGrants } from "../drizzle/schema";
import { createAuthorizationCode, exchangeCode } from "../src/auth/oauth/grants";
import { base64url } from "../src/core/crypto";
import { type ApiResponse, api, get, patch, post, testEnv, uniqueEmail } from "./helpers/api";
import { addMember, joinTeam, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "./helpers/fixtures";
import { BAD_KEY, call, eventsAfter, expectMissingScope, keyWith, ok, receiverUrl, SCOPES, type Scope } from "./helpers/least-privilege";

/** How to call an operation successfully: its concrete path and body; `written` counts rows it would write untracked. */
interface Call {
  path: string;
  body?: unknown;
  /** For an operation that writes no tracked record (no event): the rows it writes, which a refusal must leave alone. */
  written?: () => Promise<number>;
}

let doc: any;
let t: Tenant;
let team: TeamFixture;
const only = {} as Record<Scope, string>;
const owner = () => t.owner.key;
/** The request id of a request the walk expects refused: it names the operation (its index in SCOPE_TABLE). */
const REFUSED = "lp-refused-";
/** The request id of a request the walk expects to succeed. */
const SUCCEEDED = "lp-ok-";
let refusals = 0;
const refusedId = (op: string) => `${REFUSED}${Object.keys(SCOPE_TABLE).indexOf(op)}-${refusals++}`;

let n = 0;
const unique = (tag: string) => `${tag}-${Date.now().toString(36)}-${n++}`;
const prefix = () => `LP${Date.now().toString(36).slice(-4).toUpperCase()}${(n++).toString(36).toUpperCase()}`.slice(0, 10);

// Builders of what an operation acts on, through the API as the OWNER's unrestricted key (or the fixtures).
const newTask = async (teamId = team.id) => ok(await post("/tasks", { teamId, title: "Walked" }, owner()), 201).task;
/** A relation of a new task of `teamId` to a new task of `otherTeamId`: the path of its DELETE. */
const newRelationPath = async (teamId = team.id, otherTeamId = teamId) => {
  const [a, b] = [await newTask(teamId), await newTask(otherTeamId)];
  const relation = ok(await post(`/tasks/${a.id}/relations`, { type: "related", taskId: b.id }, owner()), 201).relation;
  return `/tasks/${a.reference}/relations/${relation.id}`;
};
/** A link on a new task of `teamId`: the path of its DELETE. */
const newLinkPath = async (teamId = team.id) => {
  const link = ok(await post(`/tasks/${(await newTask(teamId)).id}/links`, { url: "https://example.com/walked" }, owner()), 201).link;
  return `/links/${link.id}`;
};
/** A worklog on a new task of `teamId`. */
const newWorklog = async (teamId = team.id) =>
  ok(await post(`/tasks/${(await newTask(teamId)).id}/worklogs`, { startedAt: "2026-03-02T09:00:00Z", duration: "1h" }, owner()), 201)
    .worklog;
/** An agent of the workspace (made once), and a session of it on a new task of `teamId` (delegated by the OWNER): its id. */
let agentId: Promise<string> | undefined;
const newSession = async (teamId = team.id) => {
  agentId ??= post("/agents", { name: "Walked agent" }, owner()).then((res) => ok(res, 201).agent.id as string);
  const task = await newTask(teamId);
  return ok(await patch(`/tasks/${task.id}`, { delegateId: await agentId }, owner()), 200).task.session.id as string;
};
const newProject = async (teamId = team.id) => ok(await post("/projects", { teamId, name: "Walked project" }, owner()), 201).project;
/** A week-long cycle of `teamId`, each after the last (a team's cycles never overlap). */
let cycleWeeks = 0;
const cycleBody = (teamId: string) => {
  const start = Date.now() + (cycleWeeks++ + 1) * 7 * 86_400_000;
  return { teamId, startsAt: new Date(start).toISOString(), endsAt: new Date(start + 7 * 86_400_000).toISOString() };
};
const newCycle = async (teamId = team.id) => ok(await post("/cycles", cycleBody(teamId), owner()), 201).cycle;
const newMilestone = async (projectId?: string) =>
  ok(await post("/milestones", { projectId: projectId ?? (await newProject()).id, name: "M" }, owner()), 201).milestone;
/** An attachment on a new task of `teamId`. */
const newAttachment = async (teamId = team.id) => {
  const task = await newTask(teamId);
  return ok(await call("POST /tasks/{id}/attachments", `/tasks/${task.id}/attachments?filename=w.txt`, owner(), "walked"), 201).attachment;
};
const newComment = async (taskId?: string) =>
  ok(await post("/comments", { taskId: taskId ?? (await newTask()).id, content: "walked" }, owner()), 201).comment;
/** An attachment on a new comment. */
const newCommentAttachment = async () =>
  ok(
    await call("POST /comments/{id}/attachments", `/comments/${(await newComment()).id}/attachments?filename=w.txt`, owner(), "walked"),
    201,
  ).attachment;
const newLabel = async () => ok(await post("/labels", { name: unique("lp"), color: "#123456" }, owner()), 201).label;
const newField = async () =>
  ok(await post("/fields", { key: unique("lp").replace(/-/g, "_"), name: "Walked", type: "text", recordTypes: ["task"] }, owner()), 201)
    .field;
const newInvite = async () => ok(await post("/invites", { email: uniqueEmail("lp-invite") }, owner()), 201).invite;
const newKeyId = async () => ok(await post("/api-keys", { name: "walked" }, owner()), 201).apiKey.id as string;
/** A grant of the owner, made by the OAuth operations themselves (consent, then the code's exchange) without the pages. */
const newGrantId = () =>
  withDb(async (db) => {
    const verifier = "v".repeat(43);
    const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
    const grant = { clientId: "ocl_walk", redirectUri: "http://127.0.0.1:1/cb" };
    const code = await createAuthorizationCode(db, {
      ...grant,
      userId: t.owner.userId,
      workspaceId: t.workspaceId,
      clientName: "walk",
      codeChallenge: challenge,
      scopes: null,
      teamIds: null,
    });
    const tokens = await exchangeCode(db, testEnv as never, { ...grant, code: code!, codeVerifier: verifier });
    return JSON.parse(atob(tokens.access_token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).gid as string;
  });
const grantRows = (id: string) => () => withDb(async (db) => (await db.select().from(oauthGrants).where(eq(oauthGrants.id, id))).length);
const newWebhook = async () => ok(await post("/webhooks", { url: receiverUrl(), events: ["workspace.deleted"] }, owner()), 201).webhook;
const membership = async (teamId = team.id) => {
  const person = await addMember(t, "MEMBER");
  return joinTeam({ ...team, id: teamId }, person, "VIEWER");
};
const deliveries = (webhookId: string) => () =>
  withDb(async (db) => {
    const { rows } = await db.execute<{ n: number }>(
      sql`select count(*)::int as n from webhook_deliveries where webhook_id = ${webhookId}`,
    );
    return rows[0].n;
  });
const plain = (path: string) => async (): Promise<Call> => ({ path });
/** A notification of the OWNER's: a task of team `teamId` another member assigns to them. */
const ownerNotification = async (teamId = team.id) => {
  const person = await addMember(t, "MEMBER");
  await joinTeam({ ...team, id: teamId }, person, "MEMBER");
  const task = ok(await post("/tasks", { teamId, title: "For the owner", assigneeId: t.owner.userId }, person.key), 201).task;
  return ok(await get(`/notifications?filter[eq][taskId]=${task.id}`, owner()), 200).notifications[0].id as string;
};
/** A workflow state's key and name, new each time. */
const stateBody = () => ({ key: `LP_${Date.now().toString(36).toUpperCase()}_${n++}`, name: unique("lp state"), category: "backlog" });
/** A workflow state of `teamId`, made by the OWNER. */
const newState = async (teamId = team.id) => ok(await post(`/teams/${teamId}/states`, stateBody(), owner()), 201).state;
/** A team's export, of one task. */
const teamExport = async () => {
  const source = await newTeam(t);
  await newTask(source.id);
  return ok(await get(`/teams/${source.id}/export`, owner()), 200);
};
/** An import into `teamId` opened by the OWNER, with `part` as its part 1 if given; its id. */
const openImport = async (teamId = team.id, part?: unknown) => {
  const id = ok(await post("/imports", { teamId }, owner()), 201).import.id as string;
  if (part) ok(await call("PUT /imports/{id}/parts/{number}", `/imports/${id}/parts/1`, owner(), { data: part }), 200);
  return id;
};
/** Rows of the OWNER's imports (or of `table`) matching `where`: a refused request must leave them alone. */
const importRows =
  (where: SQL, table: "imports" | "import_parts" = "imports") =>
  () =>
    withDb(async (db) => {
      const owned = table === "imports" ? sql`user_id = ${t.owner.userId}` : sql`true`;
      const { rows } = await db.execute<{ n: number }>(sql`select count(*)::int as n from ${sql.raw(table)} where ${owned} and ${where}`);
      return rows[0].n;
    });

/** Every authenticated operation with a scope: how to call it successfully. */
// A write that takes another scope for some records (x-accepted-scopes) is prepared again for each: `scope` says which.
const SCOPE_TABLE: Record<string, (scope?: Scope) => Promise<Call>> = {
  // Workspace members and the workspace.
  "GET /users": plain("/users"),
  "GET /users/{id}": async () => ({ path: `/users/${t.owner.userId}` }),
  "PATCH /users/{id}": async () => ({ path: `/users/${(await addMember(t, "MEMBER")).userId}`, body: { role: "ADMIN" } }),
  "DELETE /users/{id}": async () => ({ path: `/users/${(await addMember(t, "MEMBER")).userId}` }),
  "GET /workspaces": plain("/workspaces"),
  "GET /workspaces/{id}": async () => ({ path: `/workspaces/${t.workspaceId}` }),
  "PATCH /workspaces/{id}": async () => ({ path: `/workspaces/${t.workspaceId}`, body: { name: unique("Walked") } }),
  "POST /invites": async () => ({ path: "/invites", body: { email: uniqueEmail("lp-invite") } }),
  "GET /invites": plain("/invites"),
  "GET /invites/{id}": async () => ({ path: `/invites/${(await newInvite()).id}` }),
  "DELETE /invites/{id}": async () => ({ path: `/invites/${(await newInvite()).id}` }),
  "POST /agents": async () => ({ path: "/agents", body: { name: "Walk bot" } }),
  // API keys.
  "GET /api-keys": plain("/api-keys"),
  "POST /api-keys": async () => ({ path: "/api-keys", body: { name: "walked" } }),
  "GET /api-keys/{id}": async () => ({ path: `/api-keys/${await newKeyId()}` }),
  "DELETE /api-keys/{id}": async () => ({ path: `/api-keys/${await newKeyId()}` }),
  // OAuth grants: no events, so a refused revocation is checked by the grant still being there.
  "GET /oauth/grants": plain("/oauth/grants"),
  "DELETE /oauth/grants/{id}": async () => {
    const id = await newGrantId();
    return { path: `/oauth/grants/${id}`, written: grantRows(id) };
  },
  // Labels and fields.
  "GET /labels": plain("/labels"),
  "POST /labels": async () => ({ path: "/labels", body: { name: unique("lp"), color: "#00aa00" } }),
  "GET /labels/{id}": async () => ({ path: `/labels/${(await newLabel()).id}` }),
  "PATCH /labels/{id}": async () => ({ path: `/labels/${(await newLabel()).id}`, body: { color: "#654321" } }),
  "DELETE /labels/{id}": async () => ({ path: `/labels/${(await newLabel()).id}` }),
  "GET /fields": plain("/fields"),
  "POST /fields": async () => ({
    path: "/fields",
    body: { key: unique("lp").replace(/-/g, "_"), name: "Severity", type: "number", recordTypes: ["task"] },
  }),
  "GET /fields/{id}": async () => ({ path: `/fields/${(await newField()).id}` }),
  "PATCH /fields/{id}": async () => ({ path: `/fields/${(await newField()).id}`, body: { name: "Renamed" } }),
  "DELETE /fields/{id}": async () => ({ path: `/fields/${(await newField()).id}` }),
  // Teams and their members.
  "GET /teams": plain("/teams"),
  "POST /teams": async () => ({ path: "/teams", body: { name: "Walked team", prefix: prefix() } }),
  "GET /teams/{id}": async () => ({ path: `/teams/${team.id}` }),
  "PATCH /teams/{id}": async () => ({ path: `/teams/${(await newTeam(t)).id}`, body: { description: "Walked" } }),
  "DELETE /teams/{id}": async () => ({ path: `/teams/${(await newTeam(t)).id}` }),
  "GET /teams/{id}/members": async () => ({ path: `/teams/${team.id}/members` }),
  "POST /teams/{id}/members": async () => ({
    path: `/teams/${team.id}/members`,
    body: { userId: (await addMember(t, "MEMBER")).userId, role: "VIEWER" },
  }),
  // A team's workflow states: read by whoever reads the team, written with `teams:write`.
  "GET /teams/{id}/states": async () => ({ path: `/teams/${team.id}/states` }),
  "POST /teams/{id}/states": async () => ({ path: `/teams/${team.id}/states`, body: stateBody() }),
  "GET /states/{id}": async () => ({ path: `/states/${(await newState()).id}` }),
  "PATCH /states/{id}": async () => ({ path: `/states/${(await newState()).id}`, body: { color: "#654321" } }),
  "DELETE /states/{id}": async () => ({ path: `/states/${(await newState()).id}` }),
  "GET /team-members/{id}": async () => ({ path: `/team-members/${await membership()}` }),
  "PATCH /team-members/{id}": async () => ({ path: `/team-members/${await membership()}`, body: { role: "MEMBER" } }),
  "DELETE /team-members/{id}": async () => ({ path: `/team-members/${await membership()}` }),
  // Tasks, projects, milestones.
  "GET /tasks": plain("/tasks"),
  "POST /tasks": async () => ({ path: "/tasks", body: { teamId: team.id, title: "Created by the walk" } }),
  "GET /tasks/{id}": async () => ({ path: `/tasks/${(await newTask()).reference}` }),
  "PATCH /tasks/{id}": async () => ({ path: `/tasks/${(await newTask()).id}`, body: { title: "Renamed", status: "DONE" } }),
  "DELETE /tasks/{id}": async () => ({ path: `/tasks/${(await newTask()).id}` }),
  "GET /projects": plain("/projects"),
  "POST /projects": async () => ({ path: "/projects", body: { teamId: team.id, name: "Walked project" } }),
  "GET /projects/{id}": async () => ({ path: `/projects/${(await newProject()).reference}` }),
  "PATCH /projects/{id}": async () => ({ path: `/projects/${(await newProject()).id}`, body: { status: "ACTIVE" } }),
  "DELETE /projects/{id}": async () => ({ path: `/projects/${(await newProject()).id}` }),
  "GET /milestones": plain("/milestones"),
  "POST /milestones": async () => ({ path: "/milestones", body: { projectId: (await newProject()).id, name: "M1" } }),
  "GET /projects/{id}/milestones": async () => ({ path: `/projects/${(await newMilestone()).projectId}/milestones` }),
  "GET /milestones/{id}": async () => ({ path: `/milestones/${(await newMilestone()).id}` }),
  "PATCH /milestones/{id}": async () => ({ path: `/milestones/${(await newMilestone()).id}`, body: { status: "DONE" } }),
  "DELETE /milestones/{id}": async () => ({ path: `/milestones/${(await newMilestone()).id}` }),
  "GET /cycles": plain("/cycles"),
  "POST /cycles": async () => ({ path: "/cycles", body: cycleBody(team.id) }),
  "GET /cycles/{id}": async () => ({ path: `/cycles/${(await newCycle()).id}` }),
  "PATCH /cycles/{id}": async () => ({ path: `/cycles/${(await newCycle()).id}`, body: { name: "Walked" } }),
  "DELETE /cycles/{id}": async () => ({ path: `/cycles/${(await newCycle()).id}` }),
  "GET /cycles/{id}/history": async () => ({ path: `/cycles/${(await newCycle()).id}/history` }),
  "GET /cycles/{id}/burnup.svg": async () => ({ path: `/cycles/${(await newCycle()).id}/burnup.svg` }),
  "GET /teams/{id}/velocity": async () => ({ path: `/teams/${team.id}/velocity` }),
  // The change feed.
  "GET /events": plain("/events"),
  "GET /sync/snapshot": plain("/sync/snapshot?types=task"),
  "GET /tasks/{id}/history": async () => ({ path: `/tasks/${(await newTask()).id}/history` }),
  "GET /tasks/{id}/relations": async () => ({ path: `/tasks/${(await newTask()).id}/relations` }),
  "POST /tasks/{id}/relations": async () => ({
    path: `/tasks/${(await newTask()).id}/relations`,
    body: { type: "blocks", taskId: (await newTask()).reference },
  }),
  "DELETE /tasks/{id}/relations/{relationId}": async () => ({ path: await newRelationPath() }),
  "GET /tasks/{id}/attachments": async () => ({ path: `/tasks/${(await newAttachment()).taskId}/attachments` }),
  "POST /tasks/{id}/attachments": async () => ({ path: `/tasks/${(await newTask()).id}/attachments?filename=a.txt`, body: "walked" }),
  "POST /comments/{id}/attachments": async () => ({
    path: `/comments/${(await newComment()).id}/attachments?filename=a.txt`,
    body: "walked",
  }),
  "GET /attachments/{id}": async () => ({ path: `/attachments/${(await newAttachment()).id}` }),
  "GET /attachments/{id}/content": async () => ({ path: `/attachments/${(await newAttachment()).id}/content` }),
  // A task's file needs tasks:write; a comment's comments:write.
  "DELETE /attachments/{id}": async (scope) => ({
    path: `/attachments/${(scope === "comments:write" ? await newCommentAttachment() : await newAttachment()).id}`,
  }),
  "GET /tasks/{id}/links": async () => ({ path: `/tasks/${(await newTask()).id}/links` }),
  "POST /tasks/{id}/links": async () => ({ path: `/tasks/${(await newTask()).reference}/links`, body: { url: "https://example.com/a" } }),
  "DELETE /links/{id}": async () => ({ path: await newLinkPath() }),
  "POST /tasks/bulk": async () => ({ path: "/tasks/bulk", body: { ids: [(await newTask()).reference], set: { priority: "LOW" } } }),
  "POST /tasks/claim": async () => ({ path: "/tasks/claim", body: { filter: { eq: { id: (await newTask()).id } } } }),
  "POST /tasks/{id}/claim": async () => ({ path: `/tasks/${(await newTask()).reference}/claim`, body: { leaseSeconds: 60 } }),
  "DELETE /tasks/{id}/claim": async () => ({ path: `/tasks/${(await newTask()).id}/claim` }),
  // Worklogs: tasks:write logs time and reads it.
  "POST /tasks/{id}/worklogs": async () => ({
    path: `/tasks/${(await newTask()).reference}/worklogs`,
    body: { startedAt: "2026-03-02T09:00:00Z", duration: "15m" },
  }),
  "GET /tasks/{id}/worklogs": async () => ({ path: `/tasks/${(await newWorklog()).taskId}/worklogs` }),
  "GET /worklogs": plain("/worklogs"),
  "GET /worklogs/summary": plain("/worklogs/summary?groupBy=user"),
  "GET /worklogs/{id}": async () => ({ path: `/worklogs/${(await newWorklog()).id}` }),
  "PATCH /worklogs/{id}": async () => ({ path: `/worklogs/${(await newWorklog()).id}`, body: { note: "Walked" } }),
  "DELETE /worklogs/{id}": async () => ({ path: `/worklogs/${(await newWorklog()).id}` }),
  // The inbox: the caller's own notifications, and following tasks.
  "GET /notifications": plain("/notifications"),
  "PATCH /notifications/{id}": async () => ({ path: `/notifications/${await ownerNotification()}`, body: { read: true } }),
  "POST /notifications/read-all": async () => ({ path: "/notifications/read-all", body: {} }),
  "PUT /tasks/{id}/subscription": async () => ({ path: `/tasks/${(await newTask()).id}/subscription` }),
  "DELETE /tasks/{id}/subscription": async () => ({ path: `/tasks/${(await newTask()).id}/subscription` }),
  "GET /tasks/{id}/subscribers": async () => ({ path: `/tasks/${(await newTask()).id}/subscribers` }),
  // Agent sessions: the OWNER, a person who may change the task, prompts and stops.
  "GET /agent-sessions": plain("/agent-sessions"),
  "GET /agent-sessions/{id}": async () => ({ path: `/agent-sessions/${await newSession()}` }),
  "GET /agent-sessions/{id}/activities": async () => ({ path: `/agent-sessions/${await newSession()}/activities` }),
  "POST /agent-sessions/{id}/activities": async () => ({
    path: `/agent-sessions/${await newSession()}/activities`,
    body: { type: "prompt", body: "walked" },
  }),
  "POST /agent-sessions/{id}/stop": async () => ({ path: `/agent-sessions/${await newSession()}/stop` }),
  "GET /projects/{id}/history": async () => ({ path: `/projects/${(await newProject()).id}/history` }),
  "GET /milestones/{id}/history": async () => ({ path: `/milestones/${(await newMilestone()).id}/history` }),
  // Comments.
  "GET /comments": plain("/comments"),
  "POST /comments": async () => ({ path: "/comments", body: { taskId: (await newTask()).id, content: "From the walk" } }),
  "GET /comments/{id}": async () => ({ path: `/comments/${(await newComment()).id}` }),
  "PATCH /comments/{id}": async () => ({ path: `/comments/${(await newComment()).id}`, body: { content: "final" } }),
  "DELETE /comments/{id}": async () => ({ path: `/comments/${(await newComment()).id}` }),
  "POST /projects/{id}/comments": async () => ({
    path: `/projects/${(await newProject()).reference}/comments`,
    body: { content: "On it" },
  }),
  "GET /projects/{id}/comments": async () => ({ path: `/projects/${(await newProject()).id}/comments` }),
  "GET /tasks/{id}/comments": async () => ({ path: `/tasks/${(await newComment()).taskId}/comments` }),
  "GET /milestones/{id}/comments": async () => ({ path: `/milestones/${(await newMilestone()).id}/comments` }),
  // Webhooks.
  "POST /webhooks": async () => ({ path: "/webhooks", body: { url: receiverUrl(), events: ["workspace.deleted"] } }),
  "GET /webhooks": plain("/webhooks"),
  "GET /webhooks/{id}": async () => ({ path: `/webhooks/${(await newWebhook()).id}` }),
  "PATCH /webhooks/{id}": async () => ({ path: `/webhooks/${(await newWebhook()).id}`, body: { description: "walked" } }),
  "DELETE /webhooks/{id}": async () => ({ path: `/webhooks/${(await newWebhook()).id}` }),
  "POST /webhooks/{id}/rotate-secret": async () => ({ path: `/webhooks/${(await newWebhook()).id}/rotate-secret` }),
  "POST /webhooks/{id}/ping": async () => {
    const hook = await newWebhook();
    return { path: `/webhooks/${hook.id}/ping`, written: deliveries(hook.id) };
  },
  "POST /webhooks/{id}/test": async () => {
    const hook = await newWebhook();
    const [event] = ok(await get("/events?limit=1", owner()), 200).events;
    return { path: `/webhooks/${hook.id}/test`, body: { eventId: event.id } };
  },
  "GET /webhooks/{id}/deliveries": async () => ({ path: `/webhooks/${(await newWebhook()).id}/deliveries` }),
  "POST /webhooks/{id}/deliveries/{deliveryId}/redeliver": async () => {
    const hook = await newWebhook();
    const delivery = ok(await post(`/webhooks/${hook.id}/ping`, undefined, owner()), 202).delivery;
    return { path: `/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`, written: deliveries(hook.id) };
  },
  // Search, export, import, batch.
  "GET /search": plain("/search?q=walked"),
  "GET /tasks/{id}/export": async () => ({ path: `/tasks/${(await newTask()).id}/export` }),
  "GET /projects/{id}/export": async () => ({ path: `/projects/${(await newProject()).id}/export` }),
  "GET /teams/{id}/export": async () => ({ path: `/teams/${(await newTeam(t)).id}/export` }),
  "GET /workspaces/{id}/export": async () => ({ path: `/workspaces/${t.workspaceId}/export` }),
  "POST /teams/{id}/import": async () => {
    const source = await newTeam(t);
    await newTask(source.id);
    const exported = ok(await get(`/teams/${source.id}/export`, owner()), 200);
    return { path: `/teams/${(await newTeam(t)).id}/import`, body: { data: exported, update: false } };
  },
  "POST /workspaces/import": async () => {
    const source = await newTenant("Walk source");
    await newTeam(source);
    const exported = ok(await get(`/workspaces/${source.workspaceId}/export`, source.owner.key), 200);
    return { path: "/workspaces/import", body: { data: exported } };
  },
  // An import sent in parts: its rows are staging, not tracked records (no events): counted instead.
  "POST /imports": async () => {
    const target = await newTeam(t);
    return { path: "/imports", body: { teamId: target.id }, written: importRows(sql`team_id = ${target.id}`) };
  },
  "GET /imports/{id}": async () => ({ path: `/imports/${await openImport()}` }),
  "PUT /imports/{id}/parts/{number}": async () => {
    const id = await openImport();
    return {
      path: `/imports/${id}/parts/1`,
      body: { data: await teamExport() },
      written: importRows(sql`import_id = ${id}`, "import_parts"),
    };
  },
  "POST /imports/{id}/commit": async () => ({ path: `/imports/${await openImport(team.id, await teamExport())}/commit` }),
  "DELETE /imports/{id}": async () => {
    const id = await openImport();
    return { path: `/imports/${id}`, written: importRows(sql`id = ${id}`) };
  },
  // An export among the items: its success (with `export`) does not stand in for the batch's own scope.
  "POST /batch": async () => ({ path: "/batch", body: { requests: ["/tasks?limit=1", `/tasks/${(await newTask()).id}/export`] } }),
};

/** Operations that need no scope (`x-required-scope: null`), each with why; walked in their own test below. */
const UNSCOPED: Record<string, string> = {
  "GET /me": "who the caller is, with its scopes and teams: any live credential may ask",
  "POST /auth/device/approve": "binds a device to the approving credential, whose token never gets more than that credential has",
};

/** Operations that may answer 2xx without a body: a list's `limit` or a selection's `fields` makes an invalid query. */
function invalidQuery(op: any): string | null {
  const names = ((op.parameters ?? []) as any[]).map((p) => (p.$ref ? doc.components.parameters[p.$ref.split("/").pop()] : p).name);
  if (names.includes("limit")) return "limit=0";
  if (names.includes("fields")) return "fields=__no_such_field__";
  if (names.includes("groupBy")) return "groupBy=__no_such_group__";
  return null;
}

/** The document's authenticated operations: `METHOD /path` with the operation object. */
function authenticated(): Array<[string, any]> {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item)
      .filter(([, op]) => Array.isArray(op?.security) && op.security.length > 0)
      .map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, any]),
  );
}
const operation = (op: string) => authenticated().find(([name]) => name === op)?.[1];
/** A response's body for a failure message, cut short (an export is long). */
const brief = (res: ApiResponse) => JSON.stringify(res.body).slice(0, 400);
const withQuery = (path: string, query: string) => `${path}${path.includes("?") ? "&" : "?"}${query}`;

/** A key with every scope but those that allow the operation (`x-accepted-scopes`: a write scope also reads its records). */
const lackingKeys = new Map<string, Promise<string>>();
function lacking(o: any): Promise<string> {
  const accepted: string[] = o["x-accepted-scopes"] ?? [o["x-required-scope"]];
  const id = accepted.join(" ");
  if (!lackingKeys.has(id)) lackingKeys.set(id, keyWith(owner(), { scopes: SCOPES.filter((s) => !accepted.includes(s)) }));
  return lackingKeys.get(id) as Promise<string>;
}

beforeAll(async () => {
  doc = ok(await get("/openapi.json"), 200);
  t = await newTenant("Least privilege walk");
  team = await newTeam(t);
  teamA = await newTeam(t);
  teamB = await newTeam(t);
  boundToA = await keyWith(owner(), { teamIds: [teamA.id] });
  await Promise.all(
    SCOPES.map(async (scope) => {
      only[scope] = await keyWith(owner(), { scopes: [scope] });
    }),
  );
});

describe.concurrent("scope walk: every operation needs its x-required-scope and no other", () => {
  it("each authenticated operation is in the table, or needs no scope; the table names no operation the document lacks", () => {
    const ops = authenticated();
    expect(ops.length).toBeGreaterThan(80);
    const missing = ops.filter(([op, o]) => !(op in SCOPE_TABLE) && !(o["x-required-scope"] === null && op in UNSCOPED)).map(([op]) => op);
    expect(missing, "authenticated operations neither walked nor unscoped: add them to SCOPE_TABLE").toEqual([]);
    const names = ops.map(([op]) => op);
    expect(Object.keys(SCOPE_TABLE).filter((op) => !names.includes(op))).toEqual([]);
    for (const [op, o] of ops) {
      if (op in SCOPE_TABLE) expect(SCOPES, `${op}: x-required-scope`).toContain(o["x-required-scope"]);
      else expect(o["x-required-scope"], `${op}: x-required-scope`).toBeNull();
    }
    // The reads whose invalid variant the walk cannot make (no list or selection parameter): known, so none goes unseen.
    const unprobed = ops.filter(([op, o]) => op.startsWith("GET ") && op in SCOPE_TABLE && !invalidQuery(o)).map(([op]) => op);
    expect(unprobed.sort()).toEqual([
      "GET /attachments/{id}/content",
      "GET /cycles/{id}/burnup.svg",
      "GET /cycles/{id}/history",
      "GET /imports/{id}",
      "GET /projects/{id}/export",
      "GET /sync/snapshot",
      "GET /tasks/{id}/export",
      "GET /teams/{id}/export",
      // A team's workflow states: at most 50, whole (no list parameters).
      "GET /teams/{id}/states",
      "GET /teams/{id}/velocity",
      "GET /workspaces/{id}/export",
    ]);
  });

  for (const [op, prepare] of Object.entries(SCOPE_TABLE)) {
    it(op, async () => {
      const o = operation(op);
      expect(o, `${op} is not in the document`).toBeTruthy();
      const scope = o["x-required-scope"] as Scope;
      const prepared = await prepare();
      const body = prepared.body;
      const method = op.split(" ")[0];
      const query = method === "GET" ? invalidQuery(o) : null;
      const written = await prepared.written?.();

      // Without the scope: 403 naming it, whatever else the request holds; a bad key: 401. Each refused request names
      // itself in its request id, which the events of anything it wrote would carry (checked after the walk).
      const refused = (path: string, key: string, payload?: unknown) => call(op, path, key, payload, { "x-request-id": refusedId(op) });
      const without = await lacking(o);
      expectMissingScope(await refused(prepared.path, without, body), scope, op);
      // A JSON body can be invalid; a file's bytes (an upload) are any bytes.
      const jsonBody = Boolean(o.requestBody?.content?.["application/json"]);
      if (jsonBody) expectMissingScope(await refused(prepared.path, without, { __bogus: true }), scope, `${op} (invalid body)`);
      if (query) expectMissingScope(await refused(withQuery(prepared.path, query), without), scope, `${op} (invalid query)`);
      const unknown = await refused(prepared.path, BAD_KEY, body);
      expect(unknown.status, `${op} with a bad key: ${brief(unknown)}`).toBe(401);
      if (prepared.written) expect(await prepared.written(), `${op}: a refused request wrote`).toBe(written);

      // With that scope alone: validation answers an invalid request (no other scope is asked first), and it succeeds.
      if (jsonBody) {
        const invalid = await call(op, prepared.path, only[scope], { __bogus: true });
        expect([400, 422], `${op} (invalid body, only ${scope}): ${brief(invalid)}`).toContain(invalid.status);
      }
      if (query) {
        const invalid = await call(op, withQuery(prepared.path, query), only[scope]);
        expect([400, 422], `${op} (invalid query, only ${scope}): ${brief(invalid)}`).toContain(invalid.status);
      }
      // A read is also allowed by each write scope that reads its records, alone; a write by each scope it accepts, on
      // a record that needs that one.
      for (const accepted of (o["x-accepted-scopes"] as Scope[] | undefined) ?? [scope]) {
        const path = method === "GET" || accepted === scope ? prepared.path : (await prepare(accepted)).path;
        const res: ApiResponse = await call(op, path, only[accepted], body, { "x-request-id": `${SUCCEEDED}${refusals++}` });
        expect(res.status, `${op} with only ${accepted}: ${brief(res)}`).toBeGreaterThanOrEqual(200);
        expect(res.status, `${op} with only ${accepted}: ${brief(res)}`).toBeLessThan(300);
      }
    });
  }

  it("operations without a scope (GET /me, POST /auth/device/approve) take any live key, and no bad one", async () => {
    for (const op of Object.keys(UNSCOPED)) expect(operation(op)?.["x-required-scope"], op).toBeNull();
    const me = ok(await get("/me", only.export), 200);
    expect(me).toMatchObject({ user: { id: t.owner.userId }, scopes: ["export"], teamIds: null });
    expect((await get("/me", BAD_KEY)).status).toBe(401);
    const device = ok(await post("/auth/device/code", { client_name: "walk" }), 200);
    expect((await post("/auth/device/approve", { user_code: device.user_code }, BAD_KEY)).status).toBe(401);
    ok(await post("/auth/device/approve", { user_code: device.user_code }, only.export), 200);
  });
});

// ---- The team-bound walk ----

/** A call on the records of one team; `key` overrides the key bound to team A (the call on team A only). */
interface TeamCall extends Call {
  key?: string;
}
interface TeamEntry {
  /** The document's operation. */
  op: string;
  /** What the body names, for an operation walked more than once (`POST /tasks` with a project of the team). */
  via?: string;
  /** The call on a record of team `x`. */
  prepare: (x: TeamFixture) => Promise<TeamCall>;
}

let teamA: TeamFixture;
let teamB: TeamFixture;
/** A key of the OWNER with every scope, bound to team A. */
let boundToA: string;

const taskIn = (x: TeamFixture) => newTask(x.id);
const projectIn = (x: TeamFixture) => newProject(x.id);
const milestoneIn = async (x: TeamFixture) => newMilestone((await projectIn(x)).id);
const commentIn = async (x: TeamFixture) => newComment((await taskIn(x)).id);

const TEAM_TABLE: TeamEntry[] = [
  // Tasks.
  { op: "GET /tasks/{id}", prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).reference}` }) },
  { op: "PATCH /tasks/{id}", prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).id}`, body: { title: "Renamed" } }) },
  { op: "DELETE /tasks/{id}", prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).id}` }) },
  { op: "GET /tasks/{id}/comments", prepare: async (x) => ({ path: `/tasks/${(await commentIn(x)).taskId}/comments` }) },
  { op: "GET /tasks/{id}/history", prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).id}/history` }) },
  { op: "GET /tasks/{id}/relations", prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).id}/relations` }) },
  { op: "GET /tasks/{id}/links", prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).id}/links` }) },
  {
    op: "POST /tasks/{id}/links",
    prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).reference}/links`, body: { url: "https://example.com/b" } }),
  },
  { op: "DELETE /links/{id}", prepare: async (x) => ({ path: await newLinkPath(x.id) }) },
  { op: "POST /tasks/{id}/claim", prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).id}/claim`, body: { leaseSeconds: 60 } }) },
  { op: "DELETE /tasks/{id}/claim", prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).id}/claim` }) },
  // The inbox: a notification is its task's team's.
  {
    op: "PATCH /notifications/{id}",
    prepare: async (x) => ({ path: `/notifications/${await ownerNotification(x.id)}`, body: { read: true } }),
  },
  { op: "PUT /tasks/{id}/subscription", prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).reference}/subscription` }) },
  { op: "DELETE /tasks/{id}/subscription", prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).reference}/subscription` }) },
  { op: "GET /tasks/{id}/subscribers", prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).reference}/subscribers` }) },
  // Agent sessions: a session is its task's team's.
  { op: "GET /agent-sessions/{id}", prepare: async (x) => ({ path: `/agent-sessions/${await newSession(x.id)}` }) },
  { op: "GET /agent-sessions/{id}/activities", prepare: async (x) => ({ path: `/agent-sessions/${await newSession(x.id)}/activities` }) },
  {
    op: "POST /agent-sessions/{id}/activities",
    prepare: async (x) => ({ path: `/agent-sessions/${await newSession(x.id)}/activities`, body: { type: "prompt", body: "walked" } }),
  },
  { op: "POST /agent-sessions/{id}/stop", prepare: async (x) => ({ path: `/agent-sessions/${await newSession(x.id)}/stop` }) },
  {
    op: "POST /tasks/{id}/worklogs",
    prepare: async (x) => ({
      path: `/tasks/${(await taskIn(x)).reference}/worklogs`,
      body: { startedAt: "2026-03-02T09:00:00Z", duration: "1h" },
    }),
  },
  { op: "GET /tasks/{id}/worklogs", prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).id}/worklogs` }) },
  { op: "GET /worklogs/{id}", prepare: async (x) => ({ path: `/worklogs/${(await newWorklog(x.id)).id}` }) },
  { op: "PATCH /worklogs/{id}", prepare: async (x) => ({ path: `/worklogs/${(await newWorklog(x.id)).id}`, body: { note: "Walked" } }) },
  { op: "DELETE /worklogs/{id}", prepare: async (x) => ({ path: `/worklogs/${(await newWorklog(x.id)).id}` }) },
  {
    op: "POST /tasks/{id}/relations",
    prepare: async (x) => ({
      path: `/tasks/${(await taskIn(x)).id}/relations`,
      body: { type: "blocks", taskId: (await taskIn(teamA)).id },
    }),
  },
  {
    op: "POST /tasks/{id}/relations",
    via: "taskId",
    prepare: async (x) => ({
      path: `/tasks/${(await taskIn(teamA)).id}/relations`,
      body: { type: "related", taskId: (await taskIn(x)).reference },
    }),
  },
  { op: "DELETE /tasks/{id}/relations/{relationId}", prepare: async (x) => ({ path: await newRelationPath(x.id) }) },
  // A relation of team A's task to a task of team B: the key bound to team A does not see it.
  {
    op: "DELETE /tasks/{id}/relations/{relationId}",
    via: "the other task",
    prepare: async (x) => ({ path: await newRelationPath(teamA.id, x.id) }),
  },
  { op: "GET /tasks/{id}/attachments", prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).id}/attachments` }) },
  {
    op: "POST /tasks/{id}/attachments",
    prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).id}/attachments?filename=b.txt`, body: "bound" }),
  },
  {
    op: "POST /comments/{id}/attachments",
    prepare: async (x) => ({ path: `/comments/${(await commentIn(x)).id}/attachments?filename=b.txt`, body: "bound" }),
  },
  { op: "GET /attachments/{id}", prepare: async (x) => ({ path: `/attachments/${(await newAttachment(x.id)).id}` }) },
  { op: "GET /attachments/{id}/content", prepare: async (x) => ({ path: `/attachments/${(await newAttachment(x.id)).id}/content` }) },
  { op: "DELETE /attachments/{id}", prepare: async (x) => ({ path: `/attachments/${(await newAttachment(x.id)).id}` }) },
  { op: "GET /tasks/{id}/export", prepare: async (x) => ({ path: `/tasks/${(await taskIn(x)).id}/export` }) },
  { op: "POST /tasks", via: "teamId", prepare: async (x) => ({ path: "/tasks", body: { teamId: x.id, title: "Bound" } }) },
  {
    op: "POST /tasks",
    via: "projectId",
    prepare: async (x) => ({ path: "/tasks", body: { teamId: teamA.id, title: "Bound", projectId: (await projectIn(x)).id } }),
  },
  {
    op: "POST /tasks",
    via: "parentId",
    prepare: async (x) => ({ path: "/tasks", body: { teamId: teamA.id, title: "Bound", parentId: (await taskIn(x)).reference } }),
  },
  {
    op: "PATCH /tasks/{id}",
    via: "projectId",
    prepare: async (x) => ({ path: `/tasks/${(await taskIn(teamA)).id}`, body: { projectId: (await projectIn(x)).reference } }),
  },
  {
    op: "PATCH /tasks/{id}",
    via: "milestoneId",
    async prepare(x) {
      // A task of team A in a project of team A, given a milestone of team x.
      const project = await projectIn(teamA);
      const task = ok(await post("/tasks", { teamId: teamA.id, title: "In a project", projectId: project.id }, owner()), 201).task;
      const milestone = x === teamA ? await newMilestone(project.id) : await milestoneIn(x);
      return { path: `/tasks/${task.id}`, body: { milestoneId: milestone.id } };
    },
  },
  // Projects and milestones.
  { op: "GET /projects/{id}", prepare: async (x) => ({ path: `/projects/${(await projectIn(x)).reference}` }) },
  { op: "PATCH /projects/{id}", prepare: async (x) => ({ path: `/projects/${(await projectIn(x)).id}`, body: { status: "ACTIVE" } }) },
  { op: "DELETE /projects/{id}", prepare: async (x) => ({ path: `/projects/${(await projectIn(x)).id}` }) },
  { op: "GET /projects/{id}/comments", prepare: async (x) => ({ path: `/projects/${(await projectIn(x)).id}/comments` }) },
  {
    op: "POST /projects/{id}/comments",
    prepare: async (x) => ({ path: `/projects/${(await projectIn(x)).id}/comments`, body: { content: "Hi" } }),
  },
  { op: "GET /projects/{id}/milestones", prepare: async (x) => ({ path: `/projects/${(await milestoneIn(x)).projectId}/milestones` }) },
  { op: "GET /projects/{id}/history", prepare: async (x) => ({ path: `/projects/${(await projectIn(x)).id}/history` }) },
  { op: "GET /projects/{id}/export", prepare: async (x) => ({ path: `/projects/${(await projectIn(x)).id}/export` }) },
  { op: "POST /projects", via: "teamId", prepare: async (x) => ({ path: "/projects", body: { teamId: x.id, name: "Bound" } }) },
  { op: "GET /milestones/{id}", prepare: async (x) => ({ path: `/milestones/${(await milestoneIn(x)).id}` }) },
  { op: "PATCH /milestones/{id}", prepare: async (x) => ({ path: `/milestones/${(await milestoneIn(x)).id}`, body: { status: "DONE" } }) },
  { op: "DELETE /milestones/{id}", prepare: async (x) => ({ path: `/milestones/${(await milestoneIn(x)).id}` }) },
  { op: "GET /milestones/{id}/comments", prepare: async (x) => ({ path: `/milestones/${(await milestoneIn(x)).id}/comments` }) },
  { op: "GET /milestones/{id}/history", prepare: async (x) => ({ path: `/milestones/${(await milestoneIn(x)).id}/history` }) },
  {
    op: "POST /milestones",
    via: "projectId",
    prepare: async (x) => ({ path: "/milestones", body: { projectId: (await projectIn(x)).id, name: "Bound" } }),
  },
  // Cycles.
  { op: "GET /cycles/{id}", prepare: async (x) => ({ path: `/cycles/${(await newCycle(x.id)).id}` }) },
  { op: "PATCH /cycles/{id}", prepare: async (x) => ({ path: `/cycles/${(await newCycle(x.id)).id}`, body: { name: "Bound" } }) },
  { op: "DELETE /cycles/{id}", prepare: async (x) => ({ path: `/cycles/${(await newCycle(x.id)).id}` }) },
  { op: "GET /cycles/{id}/history", prepare: async (x) => ({ path: `/cycles/${(await newCycle(x.id)).id}/history` }) },
  { op: "GET /cycles/{id}/burnup.svg", prepare: async (x) => ({ path: `/cycles/${(await newCycle(x.id)).id}/burnup.svg` }) },
  { op: "GET /teams/{id}/velocity", prepare: async (x) => ({ path: `/teams/${x.id}/velocity` }) },
  { op: "POST /cycles", via: "teamId", prepare: async (x) => ({ path: "/cycles", body: cycleBody(x.id) }) },
  {
    op: "PATCH /tasks/{id}",
    via: "cycleId",
    prepare: async (x) => ({ path: `/tasks/${(await taskIn(teamA)).id}`, body: { cycleId: (await newCycle(x.id)).id } }),
  },
  // Comments.
  { op: "GET /comments/{id}", prepare: async (x) => ({ path: `/comments/${(await commentIn(x)).id}` }) },
  { op: "PATCH /comments/{id}", prepare: async (x) => ({ path: `/comments/${(await commentIn(x)).id}`, body: { content: "Edited" } }) },
  { op: "DELETE /comments/{id}", prepare: async (x) => ({ path: `/comments/${(await commentIn(x)).id}` }) },
  {
    op: "POST /comments",
    via: "taskId",
    prepare: async (x) => ({ path: "/comments", body: { taskId: (await taskIn(x)).id, content: "Hi" } }),
  },
  {
    op: "POST /comments",
    via: "projectId",
    prepare: async (x) => ({ path: "/comments", body: { projectId: (await projectIn(x)).reference, content: "Hi" } }),
  },
  {
    op: "POST /comments",
    via: "milestoneId",
    prepare: async (x) => ({ path: "/comments", body: { milestoneId: (await milestoneIn(x)).id, content: "Hi" } }),
  },
  // Teams and their members.
  { op: "GET /teams/{id}", prepare: async (x) => ({ path: `/teams/${x.id}` }) },
  { op: "PATCH /teams/{id}", prepare: async (x) => ({ path: `/teams/${x.id}`, body: { description: `Walked ${n++}` } }) },
  {
    op: "PATCH /teams/{id}",
    via: "parentId",
    prepare: async (x) => ({ path: `/teams/${teamA.id}`, body: { parentId: x === teamA ? null : x.id } }),
  },
  {
    op: "DELETE /teams/{id}",
    async prepare(x) {
      // A team of its own on each side: on team A's side, with a key bound to it.
      const doomed = await newTeam(t);
      return { path: `/teams/${doomed.id}`, key: x === teamA ? await keyWith(owner(), { teamIds: [doomed.id] }) : undefined };
    },
  },
  { op: "GET /teams/{id}/members", prepare: async (x) => ({ path: `/teams/${x.id}/members` }) },
  {
    op: "POST /teams/{id}/members",
    prepare: async (x) => ({ path: `/teams/${x.id}/members`, body: { userId: (await addMember(t, "MEMBER")).userId, role: "VIEWER" } }),
  },
  { op: "GET /teams/{id}/states", prepare: async (x) => ({ path: `/teams/${x.id}/states` }) },
  { op: "POST /teams/{id}/states", prepare: async (x) => ({ path: `/teams/${x.id}/states`, body: stateBody() }) },
  { op: "GET /states/{id}", prepare: async (x) => ({ path: `/states/${(await newState(x.id)).id}` }) },
  {
    op: "PATCH /states/{id}",
    prepare: async (x) => ({ path: `/states/${(await newState(x.id)).id}`, body: { name: unique("lp renamed") } }),
  },
  { op: "DELETE /states/{id}", prepare: async (x) => ({ path: `/states/${(await newState(x.id)).id}` }) },
  { op: "GET /teams/{id}/export", prepare: async (x) => ({ path: `/teams/${x.id}/export` }) },
  {
    op: "POST /teams/{id}/import",
    async prepare(x) {
      const exported = ok(await get(`/teams/${teamA.id}/export`, owner()), 200);
      return { path: `/teams/${x.id}/import`, body: { data: exported, update: false } };
    },
  },
  // An import sent in parts into a team: another team's is not found, as its team is not.
  { op: "POST /imports", via: "teamId", prepare: async (x) => ({ path: "/imports", body: { teamId: x.id } }) },
  { op: "GET /imports/{id}", prepare: async (x) => ({ path: `/imports/${await openImport(x.id)}` }) },
  {
    op: "PUT /imports/{id}/parts/{number}",
    prepare: async (x) => ({ path: `/imports/${await openImport(x.id)}/parts/1`, body: { data: await teamExport() } }),
  },
  { op: "POST /imports/{id}/commit", prepare: async (x) => ({ path: `/imports/${await openImport(x.id, await teamExport())}/commit` }) },
  { op: "DELETE /imports/{id}", prepare: async (x) => ({ path: `/imports/${await openImport(x.id)}` }) },
  { op: "GET /team-members/{id}", prepare: async (x) => ({ path: `/team-members/${await membership(x.id)}` }) },
  { op: "PATCH /team-members/{id}", prepare: async (x) => ({ path: `/team-members/${await membership(x.id)}`, body: { role: "MEMBER" } }) },
  { op: "DELETE /team-members/{id}", prepare: async (x) => ({ path: `/team-members/${await membership(x.id)}` }) },
];

/** Operations on a path with `{id}` that name no team's record, each with why the team-bound walk leaves it out. */
const WORKSPACE_WIDE: Record<string, string> = {
  "GET /users/{id}": "a member of the workspace, not of a team",
  "PATCH /users/{id}": "a member of the workspace (role, name), not of a team",
  "DELETE /users/{id}": "removes a member from the workspace, not from a team",
  "GET /workspaces/{id}": "the workspace itself",
  "PATCH /workspaces/{id}": "the workspace itself",
  "GET /workspaces/{id}/export":
    "the whole workspace, every team's records: a team-bound credential may not export it at all (least-privilege.test.ts)",
  "GET /invites/{id}": "an invitation to the workspace (a team-bound key sees those into its teams only: the list test)",
  "DELETE /invites/{id}": "an invitation to the workspace (as GET)",
  "GET /api-keys/{id}": "the caller's own key, in no team",
  "DELETE /api-keys/{id}": "the caller's own key, in no team",
  "DELETE /oauth/grants/{id}": "the caller's own OAuth grant, in no team",
  "GET /labels/{id}": "labels are the workspace's, shared by every team",
  "PATCH /labels/{id}": "labels are the workspace's, shared by every team",
  "DELETE /labels/{id}": "labels are the workspace's, shared by every team",
  "GET /fields/{id}": "field definitions are the workspace's, shared by every team",
  "PATCH /fields/{id}": "field definitions are the workspace's, shared by every team",
  "DELETE /fields/{id}": "field definitions are the workspace's, shared by every team",
  ...Object.fromEntries(
    [
      "GET /webhooks/{id}",
      "PATCH /webhooks/{id}",
      "DELETE /webhooks/{id}",
      "POST /webhooks/{id}/rotate-secret",
      "POST /webhooks/{id}/ping",
      "POST /webhooks/{id}/test",
      "GET /webhooks/{id}/deliveries",
      "POST /webhooks/{id}/deliveries/{deliveryId}/redeliver",
    ].map((op) => [
      op,
      "a webhook is the workspace's; its teamIds filter what it delivers: what a team-bound key may do with webhooks is its own test (least-privilege.test.ts)",
    ]),
  ),
};

/** The request id of a call on team B's records (expected 404, nothing written). */
const OUTSIDE = "lp-outside-";
const entryName = (e: TeamEntry) => (e.via ? `${e.op} (${e.via})` : e.op);
/** POSTs that create nothing: an import's, a claim's and a session's stop answer 200. */
const successStatus = (op: string) =>
  op.startsWith("DELETE") ? 204 : op.startsWith("POST") && !/\/(import|commit|claim|stop)$/.test(op) ? 201 : 200;

describe.concurrent("team-bound walk: a key bound to team A finds no record of team B (404) and works on team A's", () => {
  it("each operation on a path with {id} is walked, or excluded as workspace-wide with the reason", () => {
    const ops = authenticated()
      .map(([op]) => op)
      .filter((op) => op.includes("{"));
    const walked = new Set(TEAM_TABLE.map((e) => e.op));
    const unknown = ops.filter((op) => !walked.has(op) && !(op in WORKSPACE_WIDE));
    expect(unknown, "operations on a record neither walked nor excluded: add them to TEAM_TABLE (or WORKSPACE_WIDE, saying why)").toEqual(
      [],
    );
    expect(ops.filter((op) => walked.has(op) && op in WORKSPACE_WIDE)).toEqual([]);
    const names = authenticated().map(([op]) => op);
    expect([...walked, ...Object.keys(WORKSPACE_WIDE)].filter((op) => !names.includes(op))).toEqual([]);
  });

  for (const entry of TEAM_TABLE) {
    const name = entryName(entry);
    it(name, async () => {
      const outside = await entry.prepare(teamB);
      const id = `${OUTSIDE}${refusals++}`;
      const refused = await call(entry.op, outside.path, boundToA, outside.body, { "x-request-id": id });
      expect(refused.status, `${name} on team B: ${brief(refused)}`).toBe(404);
      expect(refused.body.error.code).toBe("NOT_FOUND");
      const inside = await entry.prepare(teamA);
      const res = await call(entry.op, inside.path, inside.key ?? boundToA, inside.body);
      expect(res.status, `${name} on team A: ${brief(res)}`).toBe(successStatus(entry.op));
    });
  }
});

// ---- The grant walk ----
//
// Every operation that grants anything (a workspace role, a team or a team role, a credential, what an import
// writes), called by the OWNER's key bound to team A (every scope): what it grants stays within team A, or it is
// refused. An operation that creates a team or whose path names invites, users, agents, keys, team members, device
// approval (or any /auth, /oauth route) or an import, and is neither walked nor excluded with a reason, fails the walk.

/** What granting operations the grant walk leaves out, each with why. */
const GRANTS_NOTHING: Record<string, string> = {
  "DELETE /invites/{id}": "cancels an invite: takes away, grants nothing",
  "DELETE /team-members/{id}": "removes a membership: takes away, grants nothing",
  "DELETE /api-keys/{id}": "deletes a key: takes away, grants nothing",
  "DELETE /imports/{id}": "discards a staged import: writes no record",
  "PUT /imports/{id}/parts/{number}": "stages a part: writes no record (its commit is walked)",
  "POST /invites/redeem":
    "public: grants what its invite says, and a credential bound to teams invites only into its teams, as a MEMBER (POST /invites, walked)",
  "POST /auth/device/code": "public: starts a login that grants nothing until it is approved (walked)",
  "POST /auth/device/token": "public: hands out what the approval granted (walked)",
  "POST /auth/token": "public: renews a login with what it was granted, never more (device-login.test.ts)",
  "POST /auth/revoke": "ends a login or an OAuth grant: takes away, grants nothing",
  "DELETE /oauth/grants/{id}": "revokes an OAuth grant: takes away, grants nothing",
  "POST /oauth/register": "public: registers an OAuth client, which holds no grant",
  "POST /oauth/token": "public: hands out what a person's consent granted, never more (oauth.test.ts)",
  "POST /oauth/authorize": "the consent page's first step (its email form): grants nothing",
  "POST /oauth/authorize/signin": "the consent page's sign-in: emails a code, grants nothing",
  "POST /oauth/authorize/consent":
    "a person's consent, signed in by an emailed code (no credential): within their own membership, narrowed on the page (oauth.test.ts)",
};
/** Operations that may grant: they create or change members, roles, credentials, or write an import. */
const GRANTING =
  /^(POST|PUT|PATCH|DELETE) \/(invites|users|agents|api-keys|team-members|imports|auth|oauth)\b|^POST \/teams(\/\{id\}\/(members|import))?$|^POST \/workspaces\/import$/;

/** A device login asked for on its own (no scope: every scope), approved through the API by `approver`: its access token. */
async function deviceLogin(approver: { key: string } | { bearer: string }): Promise<string> {
  const started = ok(await post("/auth/device/code", { client_name: "grant walk" }), 200);
  ok(await api("POST", "/auth/device/approve", { ...approver, body: { user_code: started.user_code } }), 200);
  return ok(await post("/auth/device/token", { device_code: started.device_code }), 200).access_token;
}
const asBearer = (token: string, op: string, path: string, body?: unknown) => api(op, path, { bearer: token, body });
/** Rows of `table` matching `where`. */
const rowsOf = (table: string, where: SQL) =>
  withDb(async (db) => (await db.execute<{ n: number }>(sql`select count(*)::int as n from ${sql.raw(table)} where ${where}`)).rows[0].n);
/** A bound key's refusal of a workspace grant: 403 saying the credential is bound to teams. */
function expectBoundRefusal(res: ApiResponse, what: string) {
  expect(res.status, `${what}: ${brief(res)}`).toBe(403);
  expect(res.body.error.code, what).toBe("FORBIDDEN");
  expect(res.body.error.message, what).toContain("bound to teams");
}
/**
 * The records of an export of team B as a key of every team reads them now: what a grant through team A must leave alone
 * (other records of team B come and go with the concurrent walks).
 */
const teamBState = async (exported: any) => {
  const ids = new Set([...exported.data.tasks.map((r: any) => r.id), ...exported.data.teams[0].members.map((m: any) => m.userId)]);
  return {
    tasks: (await everything(`/tasks?filter[eq][teamId]=${teamB.id}`, owner(), "tasks")).filter((task) => ids.has(task.id)),
    members: (ok(await get(`/teams/${teamB.id}/members?limit=250`, owner()), 200).members as any[]).filter((m) => ids.has(m.id)),
  };
};

/**
 * Team B as `before`, but for a task a concurrent walk delegated meanwhile (it makes a task, then delegates it: its
 * delegate, session and update time are that walk's doing, not the grant's).
 */
function expectTeamBAsBefore(now: Awaited<ReturnType<typeof teamBState>>, before: Awaited<ReturnType<typeof teamBState>>) {
  const delegated = new Set(now.tasks.filter((task) => task.delegateId !== null).map((task) => task.id));
  const apart = (tasks: any[]) =>
    tasks.map(({ delegateId, session, updatedAt, ...task }) =>
      delegated.has(task.id) ? task : { ...task, delegateId, session, updatedAt },
    );
  expect({ ...now, tasks: apart(now.tasks) }).toEqual({ ...before, tasks: apart(before.tasks) });
}

const GRANT_TABLE: Record<string, () => Promise<void>> = {
  async "POST /invites"() {
    // Only into its own teams (another team is 404, as everywhere), into at least one, and never as a workspace ADMIN.
    const refused: [object, number][] = [
      [{ teamIds: [teamB.id], teamRole: "OWNER" }, 404],
      [{ teamIds: [teamA.id, teamB.id] }, 404],
      [{ teamIds: [teamA.id], role: "ADMIN" }, 403],
      [{ role: "ADMIN" }, 403],
      [{}, 403],
    ];
    for (const [body, status] of refused) {
      const email = uniqueEmail("lp-grant-invite");
      const res = await post("/invites", { email, ...body }, boundToA);
      if (status === 403) expectBoundRefusal(res, `POST /invites ${JSON.stringify(body)}`);
      else expect(res.status, `POST /invites ${JSON.stringify(body)}: ${brief(res)}`).toBe(404);
      expect(await rowsOf("invites", sql`email = ${email}`), "no invite stored").toBe(0);
    }
    const invite = ok(
      await post("/invites", { email: uniqueEmail("lp-grant-invite"), teamIds: [teamA.id], teamRole: "OWNER" }, boundToA),
      201,
    ).invite;
    expect(invite).toMatchObject({ role: "MEMBER", teamIds: [teamA.id], teamRole: "OWNER" });
  },
  async "PATCH /users/{id}"() {
    const member = await addMember(t, "MEMBER");
    const admin = await addMember(t, "ADMIN");
    expectBoundRefusal(await patch(`/users/${member.userId}`, { role: "ADMIN" }, boundToA), "promote to ADMIN");
    expectBoundRefusal(await patch(`/users/${member.userId}`, { role: "OWNER" }, boundToA), "promote to OWNER");
    expectBoundRefusal(await patch(`/users/${admin.userId}`, { role: "MEMBER" }, boundToA), "demote an ADMIN");
    expect(ok(await get(`/users/${member.userId}`, owner()), 200).user.role).toBe("MEMBER");
    expect(ok(await get(`/users/${admin.userId}`, owner()), 200).user.role).toBe("ADMIN");
    // Its own name is no grant.
    expect(ok(await patch(`/users/${t.owner.userId}`, { name: "Bound owner" }, boundToA), 200).user.name).toBe("Bound owner");
  },
  async "DELETE /users/{id}"() {
    // The member would leave every team, team B's too: refused; its own agent (made through team A) it may remove.
    const member = await addMember(t, "MEMBER");
    await joinTeam(teamB, member);
    expectBoundRefusal(await api("DELETE", `/users/${member.userId}`, { key: boundToA }), "remove a member");
    expect(ok(await get(`/users/${member.userId}`, owner()), 200).user.role).toBe("MEMBER");
    const agent = ok(await post("/agents", { name: "Leaves" }, boundToA), 201).agent;
    expect((await api("DELETE", `/users/${agent.id}`, { key: boundToA })).status).toBe(204);
  },
  async "POST /teams"() {
    // Its creator would be the new team's OWNER, in a team outside the credential's: refused, top-level or under team A.
    for (const parentId of [undefined, teamA.id]) {
      const res = await post("/teams", { name: "Grant walk", prefix: prefix(), ...(parentId && { parentId }) }, boundToA);
      expectBoundRefusal(res, `POST /teams under ${parentId ?? "none"}`);
    }
  },
  async "POST /teams/{id}/members"() {
    const person = await addMember(t, "MEMBER");
    expect((await post(`/teams/${teamB.id}/members`, { userId: person.userId, role: "OWNER" }, boundToA)).status).toBe(404);
    const added = ok(await post(`/teams/${teamA.id}/members`, { userId: person.userId, role: "OWNER" }, boundToA), 201).teamMember;
    expect(added).toMatchObject({ teamId: teamA.id, role: "OWNER" });
    // Team A's OWNER reaches no further: team B's records are not theirs to write.
    const taskOfB = await newTask(teamB.id);
    expectRoleRefusal(await patch(`/tasks/${taskOfB.id}`, { title: "Mine now" }, person.key));
  },
  async "PATCH /team-members/{id}"() {
    const inB = await membership(teamB.id);
    expect((await patch(`/team-members/${inB}`, { role: "OWNER" }, boundToA)).status).toBe(404);
    expect(ok(await get(`/team-members/${inB}`, owner()), 200).teamMember.role).toBe("VIEWER");
    const inA = await membership(teamA.id);
    expect(ok(await patch(`/team-members/${inA}`, { role: "OWNER" }, boundToA), 200).teamMember).toMatchObject({ teamId: teamA.id });
  },
  async "POST /agents"() {
    expect((await post("/agents", { name: "Of B", teamIds: [teamB.id] }, boundToA)).status).toBe(404);
    expect((await post("/agents", { name: "Of all", teamIds: null }, boundToA)).status).toBe(403);
    const agent = ok(await post("/agents", { name: "Of A" }, boundToA), 201).agent;
    expect(ok(await get("/me", agent.apiKey), 200)).toMatchObject({ role: "MEMBER", teamIds: [teamA.id] });
    expect((await get(`/tasks/${(await newTask(teamB.id)).id}`, agent.apiKey)).status).toBe(404);
    // Its key makes no wider one, and the bound key cannot widen the agent's role.
    expect((await post("/api-keys", { name: "wider", teamIds: null }, agent.apiKey)).status).toBe(403);
    expectBoundRefusal(await patch(`/users/${agent.id}`, { role: "ADMIN" }, boundToA), "promote its agent");
  },
  async "POST /api-keys"() {
    expect((await post("/api-keys", { name: "Of B", teamIds: [teamB.id] }, boundToA)).status).toBe(404);
    expect((await post("/api-keys", { name: "Of all", teamIds: null }, boundToA)).status).toBe(403);
    const key = ok(await post("/api-keys", { name: "Of A" }, boundToA), 201).key;
    expect(ok(await get("/me", key), 200).teamIds).toEqual([teamA.id]);
    expect((await get(`/tasks/${(await newTask(teamB.id)).id}`, key)).status).toBe(404);
  },
  async "POST /auth/device/approve"() {
    const token = await deviceLogin({ key: boundToA });
    expect(ok(await asBearer(token, "GET", "/me"), 200).teamIds).toEqual([teamA.id]);
    expect((await asBearer(token, "GET", `/tasks/${(await newTask(teamB.id)).id}`)).status).toBe(404);
    // The login grants no more than its approver: no workspace role, no wider key, no wider login.
    expect((await asBearer(token, "POST", "/invites", { email: uniqueEmail("lp-grant-device"), teamIds: [teamB.id] })).status).toBe(404);
    expectBoundRefusal(
      await asBearer(token, "POST", "/invites", { email: uniqueEmail("lp-grant-device"), role: "ADMIN" }),
      "invite by its login",
    );
    expect((await asBearer(token, "POST", "/api-keys", { name: "wider", teamIds: null })).status).toBe(403);
    const again = await deviceLogin({ bearer: token });
    expect(ok(await asBearer(again, "GET", "/me"), 200).teamIds).toEqual([teamA.id]);
  },
  async "POST /teams/{id}/import"() {
    // Team B's export, into team A with update: new records in team A (its members join team A); team B as it was.
    await newTask(teamB.id);
    const exported = ok(await get(`/teams/${teamB.id}/export`, owner()), 200);
    expect((await post(`/teams/${teamB.id}/import`, { data: exported, update: true }, boundToA)).status).toBe(404);
    const before = await teamBState(exported);
    expect(before.tasks.length * before.members.length).toBeGreaterThan(0);
    ok(await post(`/teams/${teamA.id}/import`, { data: exported, update: true }, boundToA), 200);
    expectTeamBAsBefore(await teamBState(exported), before);
  },
  async "POST /workspaces/import"() {
    const source = await newTenant("Grant walk source");
    const exported = ok(await get(`/workspaces/${source.workspaceId}/export`, source.owner.key), 200);
    expectBoundRefusal(await post("/workspaces/import", { data: exported }, boundToA), "POST /workspaces/import");
  },
  async "POST /imports"() {
    expect((await post("/imports", { teamId: teamB.id }, boundToA)).status).toBe(404);
    expectBoundRefusal(await post("/imports", {}, boundToA), "an import of a workspace");
  },
  async "POST /imports/{id}/commit"() {
    await newTask(teamB.id);
    const exported = ok(await get(`/teams/${teamB.id}/export`, owner()), 200);
    const id = ok(await post("/imports", { teamId: teamA.id, update: true }, boundToA), 201).import.id;
    ok(await call("PUT /imports/{id}/parts/{number}", `/imports/${id}/parts/1`, boundToA, { data: exported }), 200);
    const before = await teamBState(exported);
    expect(before.tasks.length * before.members.length).toBeGreaterThan(0);
    ok(await post(`/imports/${id}/commit`, undefined, boundToA), 200);
    expectTeamBAsBefore(await teamBState(exported), before);
  },
};

/** 403 FORBIDDEN for a role the user lacks (no scope named). */
function expectRoleRefusal(res: ApiResponse) {
  expect(res.status, brief(res)).toBe(403);
  expect(res.body.error.details?.requiredScope).toBeUndefined();
}

describe.concurrent("grant walk: a key bound to team A grants nothing past team A", () => {
  it("each operation that may grant is walked, or excluded with the reason", () => {
    const ops = Object.entries<any>(doc.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .filter((op) => GRANTING.test(op));
    const unknown = ops.filter((op) => !(op in GRANT_TABLE) && !(op in GRANTS_NOTHING));
    expect(
      unknown,
      "operations that may grant, neither walked nor excluded: add them to GRANT_TABLE (or GRANTS_NOTHING, saying why)",
    ).toEqual([]);
    expect([...Object.keys(GRANT_TABLE), ...Object.keys(GRANTS_NOTHING)].filter((op) => !ops.includes(op))).toEqual([]);
  });

  for (const [op, walk] of Object.entries(GRANT_TABLE)) it(op, walk);
});

/** Every item of a list (all pages) as `key` sees it. */
async function everything(path: string, key: string, plural: string): Promise<any[]> {
  const items: any[] = [];
  let next = withQuery(path, "limit=250");
  for (;;) {
    const body = ok(await get(next, key), 200);
    items.push(...body[plural]);
    if (!body.pagination.nextCursor) return items;
    next = withQuery(path, `limit=250&cursor=${encodeURIComponent(body.pagination.nextCursor)}`);
  }
}

/** A task, a project with a milestone, and comments on each, in team `x`, titled with `word` (for search). */
async function recordsIn(x: TeamFixture, word: string) {
  const task = ok(await post("/tasks", { teamId: x.id, title: `${word} task` }, owner()), 201).task;
  const project = ok(await post("/projects", { teamId: x.id, name: `${word} project` }, owner()), 201).project;
  const milestone = await newMilestone(project.id);
  const comments = [
    await newComment(task.id),
    ok(await post("/comments", { projectId: project.id, content: `${word} comment` }, owner()), 201).comment,
    ok(await post("/comments", { milestoneId: milestone.id, content: `${word} comment` }, owner()), 201).comment,
  ];
  return { task, project, milestone, comments, ids: [task.id, project.id, milestone.id, ...comments.map((c) => c.id)] };
}

describe.concurrent("team-bound lists never show team B's records", () => {
  let a: Awaited<ReturnType<typeof recordsIn>>;
  let b: Awaited<ReturnType<typeof recordsIn>>;
  const word = `zebra${Date.now().toString(36)}`;
  beforeAll(async () => {
    [a, b] = [await recordsIn(teamA, word), await recordsIn(teamB, word)];
  });

  it("GET /invites and /invites/{id}: invites into team A only (another team's id never shows); others are 404", async () => {
    const intoA = ok(await post("/invites", { email: uniqueEmail("lp-inv-a"), teamIds: [teamA.id] }, owner()), 201).invite;
    const intoB = ok(await post("/invites", { email: uniqueEmail("lp-inv-b"), teamIds: [teamB.id] }, owner()), 201).invite;
    const intoBoth = ok(await post("/invites", { email: uniqueEmail("lp-inv-ab"), teamIds: [teamA.id, teamB.id] }, owner()), 201).invite;
    const intoNone = ok(await post("/invites", { email: uniqueEmail("lp-inv-0") }, owner()), 201).invite;
    const listed = await everything("/invites", boundToA, "invites");
    expect(listed.map((x) => x.id)).toContain(intoA.id);
    for (const invite of listed) expect(invite.teamIds).toEqual([teamA.id]);
    for (const hidden of [intoB, intoBoth, intoNone]) {
      expect((await get(`/invites/${hidden.id}`, boundToA)).status, "GET").toBe(404);
      expect((await api("DELETE", `/invites/${hidden.id}`, { key: boundToA })).status, "DELETE").toBe(404);
      expect(ok(await get(`/invites/${hidden.id}`, owner()), 200).invite.id).toBe(hidden.id);
    }
    expect(ok(await get(`/invites/${intoA.id}`, boundToA), 200).invite.id).toBe(intoA.id);
    expect((await get("/invites", owner())).body.invites.length).toBeGreaterThanOrEqual(4);
  });

  it("GET /tasks, /projects, /milestones, /comments, /teams: team A's records, none of team B's (also when filtered for B)", async () => {
    const tasks = await everything("/tasks", boundToA, "tasks");
    expect(tasks.map((x) => x.id)).toContain(a.task.id);
    expect(new Set(tasks.map((x) => x.teamId))).toEqual(new Set([teamA.id]));
    const projects = await everything("/projects", boundToA, "projects");
    expect(projects.map((x) => x.id)).toContain(a.project.id);
    expect(new Set(projects.map((x) => x.teamId))).toEqual(new Set([teamA.id]));
    const milestones = (await everything("/milestones", boundToA, "milestones")).map((x) => x.id);
    expect(milestones).toContain(a.milestone.id);
    expect(milestones).not.toContain(b.milestone.id);
    const comments = (await everything("/comments", boundToA, "comments")).map((x) => x.id);
    expect(comments).toEqual(expect.arrayContaining(a.comments.map((c) => c.id)));
    for (const c of b.comments) expect(comments).not.toContain(c.id);
    expect((await everything("/teams", boundToA, "teams")).map((x) => x.id)).toEqual([teamA.id]);
    expect(await everything(`/tasks?filter[eq][teamId]=${teamB.id}`, boundToA, "tasks")).toEqual([]);
    expect(await everything(`/comments?filter[eq][taskId]=${b.task.id}`, boundToA, "comments")).toEqual([]);
  });

  // until search/events/export/webhooks get team reach
  it("GET /search?q=… finds team A's records, none of team B's", async () => {
    const results = (ok(await get(`/search?q=${word}&limit=50`, boundToA), 200).results as any[]).map((r) => r.id);
    expect(results).toEqual(expect.arrayContaining([a.task.id, a.project.id]));
    for (const id of b.ids) expect(results).not.toContain(id);
  });

  // until search/events/export/webhooks get team reach
  it("GET /events shows the events of team A's records, none of team B's", async () => {
    const seen = (await eventsAfter(boundToA)).map((e) => e.resourceId);
    expect(seen).toEqual(expect.arrayContaining(a.ids));
    for (const id of [...b.ids, teamB.id]) expect(seen).not.toContain(id);
  });
});

describe("nothing written by a refused request", () => {
  it("the workspace's events (GET /events, unrestricted) hold none of a request the walks refused", async () => {
    const all = await eventsAfter(owner());
    const by = (prefix: string) =>
      all.filter((e) => String(e.requestId).startsWith(prefix)).map((e) => `${e.type} ${e.resourceId} by ${e.requestId}`);
    expect(by(REFUSED), "events of requests refused for a missing scope (the id names the operation's index in SCOPE_TABLE)").toEqual([]);
    expect(by(OUTSIDE), "events of requests on team B's records by a key bound to team A").toEqual([]);
    // Events do carry the request id a client sent: the scope walk's successful writes are there under theirs.
    expect(by(SUCCEEDED).length).toBeGreaterThan(30);
  });
});
