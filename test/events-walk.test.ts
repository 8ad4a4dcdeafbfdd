// Every write has its event (docs/events.md): walks the served OpenAPI document and, for each POST/PUT/PATCH/DELETE
// operation in it, either performs it successfully from the explicit table below and checks that exactly its events
// appeared in GET /events (types and resource ids, the response's x-request-id, the caller as actor, how it came), or
// finds it among the exclusions with the reason it changes no tracked record. A write operation in the document that is
// in neither fails the walk, so a new write path cannot be added without saying what it records.
import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { signAccessToken } from "../src/auth/jwt";
import { type ApiResponse, api, get, patch, post, uniqueEmail } from "./helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "./helpers/fixtures";
import { call } from "./helpers/least-privilege";
import { codeIn, mailTo, startSignup } from "./helpers/signup";

type Via = "api_key" | "jwt" | "mcp" | "import" | "sign_up";
/** A credential: an API key (`svc-api-key`) or a JWT (`Authorization: Bearer`). */
type Cred = { key: string } | { bearer: string };
/** One event the operation must produce: its type, the record it is about, and (updates) which fields `changes` names. */
interface Want {
  type: string;
  id: string;
  changes?: string[];
}
interface Outcome {
  events: Want[];
  /** The user the events name as actor (default: the caller of the table, the tenant's OWNER). */
  actor?: string;
  /** How the change came (default: `api_key`); `sign_up` for a sign-up or an invite redeemed, null for a login (no credential). */
  via?: Via | null;
  /** For an operation that makes a new workspace: a credential of it, whose whole stream is the operation's events. */
  reader?: Cred;
}
interface Prepared {
  send: () => Promise<ApiResponse>;
  /** What the answer must have produced (may read the API to learn the ids of what was written). */
  outcome: (res: ApiResponse) => Promise<Outcome> | Outcome;
}
interface Entry {
  /** `METHOD /path` as in the document. */
  op: string;
  /** Walked only when the document has it (an operation a parallel branch adds). */
  optional?: boolean;
  prepare: () => Promise<Prepared>;
}

const WRITE_METHODS = ["post", "put", "patch", "delete"];

/** Write operations that change no tracked record (those docs/events.md lists), each with why. */
const EXCLUDED: Record<string, string> = {
  "POST /signup/start": "stores a sign-up code (signup_codes), not a tracked record; the workspace comes with /signup/complete",
  "POST /login/start": "stores a login code (login_codes), not a tracked record",
  "POST /auth/device/code": "starts a device authorization (device_authorizations), not a tracked record",
  "POST /auth/device/approve": "binds a device authorization to the caller, not a tracked record",
  "POST /auth/device/token": "exchanges an approved device code for a JWT; writes only the device authorization",
  "POST /auth/token": "renews a device's login (device_authorizations' refresh token), not a tracked record",
  "POST /auth/revoke": "ends a device's login (device_authorizations) or an OAuth grant (oauth_grants), not a tracked record",
  "POST /device": "the device verification page's form (HTML), reading the user code; no tracked record",
  "POST /device/confirm":
    "the device verification page's code step (HTML): uses a login code up (a denial decides the device), not a tracked record",
  "POST /device/decide": "the device verification page's approval (HTML): a device authorization, not a tracked record",
  "POST /account/signin": "the account page's email step (HTML): a login code, not a tracked record",
  "POST /account/signin/code": "the account page's code step (HTML): uses a login code up, not a tracked record",
  "POST /account/signout": "the account page's sign-out (HTML): a new cookie, nothing stored",
  "POST /account/revoke":
    "the account page's revocation (HTML) runs DELETE /api-keys/{id}'s own operation (walked here), DELETE /oauth/grants/{id}'s or POST /auth/revoke's; test/resources/account/account.test.ts checks a key's api_key.deleted names the person as actor",
  "POST /batch": "runs GET items only (src/resources/batch/paths.ts refuses any other method); proven below to write nothing",
  "POST /_bench/files": "the bench's plain R2 put (BENCH_ROUTES only): an object, no record",
  "POST /_dev/webhooks": "the development receiver keeps what it got (dev_webhook_requests), not a tracked record",
  "POST /webhooks/{id}/ping": "queues a test delivery; no tracked record changes",
  "PATCH /notifications/{id}": "marks the caller's own notification (notifications are not workspace events: docs/api.md, Inbox)",
  "POST /notifications/read-all": "marks the caller's own notifications (not workspace events)",
  "PUT /tasks/{id}/subscription": "the caller follows a task (task_subscriptions): the caller's inbox, not a workspace event",
  "DELETE /tasks/{id}/subscription": "the caller stops following a task (task_subscriptions): not a workspace event",
  "POST /webhooks/{id}/test": "answers whether the webhook takes a stored event; writes nothing",
  "POST /webhooks/{id}/deliveries/{deliveryId}/redeliver": "queues a delivery again; no tracked record changes",
  "POST /imports": "opens an import sent in parts (imports), not a tracked record; its commit is walked below",
  "PUT /imports/{id}/parts/{number}": "stores a part of an import (import_parts, import_records): staging, not a tracked record",
  "DELETE /imports/{id}": "discards an import's staging, not a tracked record",
  "POST /oauth/register": "registers an OAuth client (oauth_clients), not a tracked record",
  "POST /oauth/token": "exchanges a code or refresh token (oauth_grants, oauth_refresh_tokens), not a tracked record",
  "POST /oauth/authorize": "the consent page's email step (HTML): a login code, not a tracked record",
  "POST /oauth/authorize/signin": "the consent page's code step (HTML): uses a login code up, not a tracked record",
  "POST /oauth/authorize/consent": "the consent page's approval (HTML): an authorization code (oauth_grants), not a tracked record",
  "DELETE /oauth/grants/{id}": "revokes an OAuth grant (oauth_grants), not a tracked record, as a device's logout",
};

/** What a defective operation's events say today instead of the right value (see KNOWN_DEFECTS). */
interface Today {
  actor?: string | null;
  via?: Via | null;
  requestId?: null;
}
/**
 * Operations whose success does not yet produce the events the table expects: real defects. Each runs twice: strictly
 * under `it.fails` (it turns red the day the defect is fixed: then delete the entry here), and tolerating exactly the
 * described deviation, so every other property of its events stays checked.
 */
const KNOWN_DEFECTS: Record<string, { what: string; today: Today }> = {};

let t: Tenant;
let team: TeamFixture;
let member: Member;
let doc: any;

const owner = (): Cred => ({ key: t.owner.key });
const send = (method: string, path: string, cred: Cred | null, body?: unknown, headers?: Record<string, string>) =>
  api(method, path, { body, headers, ...(cred ?? {}) });
const ok = (res: ApiResponse, status: number) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
};
const jwtOf = async (userId: string, workspaceId: string) => (await signAccessToken(env, { sub: userId, wid: workspaceId })).token;

/** Every event after `after` (all pages) that `cred` sees, oldest first. */
async function stream(cred: Cred, after?: string): Promise<any[]> {
  const seen: any[] = [];
  let path = `/events?limit=250${after ? `&after=${after}` : ""}`;
  for (;;) {
    const res = await send("GET", path, cred);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    seen.push(...res.body.events);
    if (!res.body.pagination.nextCursor) return seen;
    path = `/events?limit=250&cursor=${encodeURIComponent(res.body.pagination.nextCursor)}`;
  }
}
const lastEventId = async () => (await stream(owner())).at(-1)?.id as string | undefined;

// Small builders of what an operation needs, through the API as its OWNER.
const newTask = async (body: Record<string, unknown> = {}) =>
  ok(await post("/tasks", { teamId: team.id, title: "Walked", ...body }, t.owner.key), 201).task;
const newProject = async () => ok(await post("/projects", { teamId: team.id, name: "Walked project" }, t.owner.key), 201).project;
/** A week-long cycle of the walk's team, each after the last (a team's cycles never overlap). */
let cycleWeeks = 0;
const cycleBody = () => {
  const start = Date.now() + (cycleWeeks++ + 1) * 7 * 86_400_000;
  return { teamId: team.id, startsAt: new Date(start).toISOString(), endsAt: new Date(start + 7 * 86_400_000).toISOString() };
};
const newCycle = async () => ok(await post("/cycles", cycleBody(), t.owner.key), 201).cycle;
/** An agent (made once) and its session on a new task, delegated by the OWNER: the session's id. */
let walkedAgent: Promise<string> | undefined;
const newSession = async () => {
  walkedAgent ??= post("/agents", { name: "Walked agent" }, t.owner.key).then((res) => ok(res, 201).agent.id as string);
  const task = await newTask({ delegateId: await walkedAgent });
  return task.session.id as string;
};
const newLabel = async () =>
  ok(await post("/labels", { name: `walk-${Math.random().toString(36).slice(2, 10)}`, color: "#123456" }, t.owner.key), 201).label;
const newField = async () =>
  ok(
    await post(
      "/fields",
      { key: `walk_${Math.random().toString(36).slice(2, 10)}`, name: "Walked", type: "text", recordTypes: ["task"] },
      t.owner.key,
    ),
    201,
  ).field;
const membershipOf = async (teamId: string, userId: string) =>
  (ok(await get(`/teams/${teamId}`, t.owner.key), 200).team.members as any[]).find((m) => m.id === userId)?.membershipId as string;
const keysOf = async (cred: Cred) => ok(await send("GET", "/api-keys", cred), 200).api_keys as any[];
const invited = async (body: Record<string, unknown> = {}) => {
  const email = uniqueEmail("walk-invitee");
  const invite = ok(await post("/invites", { email, ...body }, t.owner.key), 201).invite;
  const token = /Invite token: (\S+)/.exec((await mailTo(email)).text)![1];
  return { invite, token };
};

/** The ids of every record in an export document, with the event type its creation makes. */
/** The ids of a team's workflow states. */
async function statesOf(teamId: string): Promise<string[]> {
  return ok(await get(`/teams/${teamId}/states`, t.owner.key), 200).states.map((s: { id: string }) => s.id);
}

function created(exported: any): Want[] {
  const d = exported.data;
  const wants: Want[] = [];
  const add = (type: string, records: any[] | undefined) => {
    for (const r of records ?? []) wants.push({ type, id: r.id });
  };
  add("task.created", d.tasks);
  add("project.created", d.projects);
  add("milestone.created", d.milestones);
  add("comment.created", d.comments);
  add("label.created", d.labels);
  add("field.created", d.fields);
  add("team.created", d.teams);
  for (const team of d.teams ?? []) add("team_member.created", team.members);
  add("state.created", d.states);
  return wants;
}

const TABLE: Entry[] = [
  // Accounts.
  {
    op: "POST /signup/complete",
    async prepare() {
      const email = uniqueEmail("walk-signup");
      const { token, code } = await startSignup(email);
      return {
        send: () => post("/signup/complete", { signup_token: token, code, name: "Walker", workspace_name: "Walked Co" }),
        async outcome(res) {
          const key = res.body.data.api_token as string;
          const me = ok(await get("/me", key), 200);
          const [apiKey] = await keysOf({ key });
          return {
            events: [
              { type: "workspace.created", id: me.workspace.id },
              { type: "member.joined", id: me.user.id },
              { type: "api_key.created", id: apiKey.id },
            ],
            actor: me.user.id,
            via: "sign_up",
            reader: { key },
          };
        },
      };
    },
  },
  {
    op: "POST /login/complete",
    async prepare() {
      const person = await addMember(t, "MEMBER");
      const started = ok(await post("/login/start", { email: person.email }), 200);
      const code = codeIn(await mailTo(person.email));
      const before = new Set((await keysOf({ key: person.key })).map((k) => k.id));
      return {
        send: () => post("/login/complete", { login_token: started.data.login_token, code }),
        async outcome() {
          const fresh = (await keysOf({ key: person.key })).filter((k) => !before.has(k.id));
          expect(fresh).toHaveLength(1);
          return { events: [{ type: "api_key.created", id: fresh[0].id }], actor: person.userId, via: null };
        },
      };
    },
  },
  {
    op: "POST /invites",
    async prepare() {
      return {
        send: () => post("/invites", { email: uniqueEmail("walk-invite"), teamIds: [team.id] }, t.owner.key),
        outcome: (res) => ({ events: [{ type: "invite.created", id: res.body.invite.id }] }),
      };
    },
  },
  {
    op: "POST /invites/redeem",
    async prepare() {
      const { invite, token } = await invited({ teamIds: [team.id] });
      return {
        send: () => post("/invites/redeem", { token, name: "Redeemer" }),
        async outcome(res) {
          const key = res.body.data.api_token as string;
          const me = ok(await get("/me", key), 200);
          const [apiKey] = await keysOf({ key });
          return {
            events: [
              { type: "member.joined", id: me.user.id },
              { type: "invite.updated", id: invite.id },
              { type: "api_key.created", id: apiKey.id },
              { type: "team_member.created", id: await membershipOf(team.id, me.user.id) },
            ],
            actor: me.user.id,
            via: "sign_up",
          };
        },
      };
    },
  },
  {
    op: "DELETE /invites/{id}",
    async prepare() {
      const invite = ok(await post("/invites", { email: uniqueEmail("walk-cancel") }, t.owner.key), 201).invite;
      return {
        send: () => send("DELETE", `/invites/${invite.id}`, owner()),
        outcome: () => ({ events: [{ type: "invite.deleted", id: invite.id }] }),
      };
    },
  },
  {
    op: "POST /agents",
    async prepare() {
      return {
        send: () => post("/agents", { name: "Walk bot" }, t.owner.key),
        async outcome(res) {
          const agent = res.body.agent;
          const key = (await keysOf({ key: agent.apiKey })).find((k) => k.userId === agent.id);
          return {
            events: [
              { type: "agent.created", id: agent.id },
              { type: "api_key.created", id: key.id },
            ],
          };
        },
      };
    },
  },
  {
    op: "POST /api-keys",
    async prepare() {
      return {
        send: () => post("/api-keys", { name: "walked" }, t.owner.key),
        outcome: (res) => ({ events: [{ type: "api_key.created", id: res.body.apiKey.id }] }),
      };
    },
  },
  {
    op: "DELETE /api-keys/{id}",
    async prepare() {
      const apiKey = ok(await post("/api-keys", { name: "to delete" }, t.owner.key), 201).apiKey;
      return {
        send: () => send("DELETE", `/api-keys/${apiKey.id}`, owner()),
        outcome: () => ({ events: [{ type: "api_key.deleted", id: apiKey.id }] }),
      };
    },
  },
  // Workspace members and the workspace.
  {
    op: "PATCH /users/{id}",
    async prepare() {
      const person = await addMember(t, "MEMBER");
      return {
        send: () => patch(`/users/${person.userId}`, { role: "ADMIN" }, t.owner.key),
        outcome: () => ({ events: [{ type: "member.updated", id: person.userId, changes: ["role"] }] }),
      };
    },
  },
  {
    op: "DELETE /users/{id}",
    async prepare() {
      const person = await addMember(t, "MEMBER");
      const membership = await joinTeam(team, person, "MEMBER");
      const [apiKey] = await keysOf({ key: person.key });
      return {
        send: () => send("DELETE", `/users/${person.userId}`, owner()),
        outcome: () => ({
          events: [
            { type: "member.removed", id: person.userId },
            { type: "team_member.deleted", id: membership },
            { type: "api_key.deleted", id: apiKey.id },
          ],
        }),
      };
    },
  },
  {
    op: "PATCH /workspaces/{id}",
    async prepare() {
      return {
        send: () => patch(`/workspaces/${t.workspaceId}`, { name: `Walked ${Date.now()}` }, t.owner.key),
        outcome: () => ({ events: [{ type: "workspace.updated", id: t.workspaceId, changes: ["name"] }] }),
      };
    },
  },
  // Labels and fields.
  {
    op: "POST /labels",
    async prepare() {
      return {
        send: () => post("/labels", { name: "walk-new", color: "#00aa00" }, t.owner.key),
        outcome: (res) => ({ events: [{ type: "label.created", id: res.body.label.id }] }),
      };
    },
  },
  {
    op: "PATCH /labels/{id}",
    async prepare() {
      const label = await newLabel();
      return {
        send: () => patch(`/labels/${label.id}`, { color: "#654321" }, t.owner.key),
        outcome: () => ({ events: [{ type: "label.updated", id: label.id, changes: ["color"] }] }),
      };
    },
  },
  {
    op: "DELETE /labels/{id}",
    async prepare() {
      // A label in use: taking it off its task is a change of the task too.
      const label = await newLabel();
      const task = await newTask({ labelIds: [label.id] });
      return {
        send: () => send("DELETE", `/labels/${label.id}`, owner()),
        outcome: () => ({
          events: [
            { type: "label.deleted", id: label.id },
            { type: "task.updated", id: task.id, changes: ["labelIds"] },
          ],
        }),
      };
    },
  },
  {
    op: "POST /fields",
    async prepare() {
      return {
        send: () => post("/fields", { key: "walk_severity", name: "Severity", type: "number", recordTypes: ["task"] }, t.owner.key),
        outcome: (res) => ({ events: [{ type: "field.created", id: res.body.field.id }] }),
      };
    },
  },
  {
    op: "PATCH /fields/{id}",
    async prepare() {
      const field = await newField();
      return {
        send: () => patch(`/fields/${field.id}`, { name: "Renamed" }, t.owner.key),
        outcome: () => ({ events: [{ type: "field.updated", id: field.id, changes: ["name"] }] }),
      };
    },
  },
  {
    op: "DELETE /fields/{id}",
    async prepare() {
      const field = await newField();
      return {
        send: () => send("DELETE", `/fields/${field.id}`, owner()),
        outcome: () => ({ events: [{ type: "field.deleted", id: field.id }] }),
      };
    },
  },
  // Teams and their members.
  {
    op: "POST /teams",
    async prepare() {
      return {
        send: () => post("/teams", { name: "Walked team", prefix: "WLKNEW" }, t.owner.key),
        async outcome(res) {
          const created = res.body.team;
          return {
            events: [
              { type: "team.created", id: created.id },
              { type: "team_member.created", id: await membershipOf(created.id, t.owner.userId) },
              // A new team's six workflow states, written with it.
              ...(await statesOf(created.id)).map((id) => ({ type: "state.created", id })),
            ],
          };
        },
      };
    },
  },
  {
    op: "PATCH /teams/{id}",
    async prepare() {
      const target = await newTeam(t);
      return {
        send: () => patch(`/teams/${target.id}`, { description: "Walked" }, t.owner.key),
        outcome: () => ({ events: [{ type: "team.updated", id: target.id, changes: ["description"] }] }),
      };
    },
  },
  {
    op: "DELETE /teams/{id}",
    async prepare() {
      // The team's task and its memberships go with it: each is an event.
      const target = await newTeam(t);
      const membership = await membershipOf(target.id, t.owner.userId);
      const task = ok(await post("/tasks", { teamId: target.id, title: "Goes with its team" }, t.owner.key), 201).task;
      const states = await statesOf(target.id);
      return {
        send: () => send("DELETE", `/teams/${target.id}`, owner()),
        outcome: () => ({
          events: [
            { type: "team.deleted", id: target.id },
            { type: "team_member.deleted", id: membership },
            { type: "task.deleted", id: task.id },
            ...states.map((id) => ({ type: "state.deleted", id })),
          ],
        }),
      };
    },
  },
  {
    op: "POST /teams/{id}/members",
    async prepare() {
      const person = await addMember(t, "MEMBER");
      return {
        send: () => post(`/teams/${team.id}/members`, { userId: person.userId, role: "VIEWER" }, t.owner.key),
        outcome: (res) => ({ events: [{ type: "team_member.created", id: res.body.teamMember.id }] }),
      };
    },
  },
  {
    op: "PATCH /team-members/{id}",
    async prepare() {
      const person = await addMember(t, "MEMBER");
      const membership = await joinTeam(team, person, "VIEWER");
      return {
        send: () => patch(`/team-members/${membership}`, { role: "MEMBER" }, t.owner.key),
        outcome: () => ({ events: [{ type: "team_member.updated", id: membership, changes: ["role"] }] }),
      };
    },
  },
  {
    op: "DELETE /team-members/{id}",
    async prepare() {
      const person = await addMember(t, "MEMBER");
      const membership = await joinTeam(team, person, "MEMBER");
      return {
        send: () => send("DELETE", `/team-members/${membership}`, owner()),
        outcome: () => ({ events: [{ type: "team_member.deleted", id: membership }] }),
      };
    },
  },
  // A team's workflow states.
  {
    op: "POST /teams/{id}/states",
    async prepare() {
      return {
        send: () => post(`/teams/${team.id}/states`, { key: "WALKED", name: "Walked", category: "started" }, t.owner.key),
        outcome: (res) => ({ events: [{ type: "state.created", id: res.body.state.id }] }),
      };
    },
  },
  {
    op: "PATCH /states/{id}",
    async prepare() {
      // A new category reaches the state's task: its own task.updated.
      const state = ok(
        await post(`/teams/${team.id}/states`, { key: "WALK_QA", name: "Walk QA", category: "started" }, t.owner.key),
        201,
      ).state;
      const task = await newTask({ status: "WALK_QA" });
      return {
        send: () => patch(`/states/${state.id}`, { category: "completed", color: "#123456" }, t.owner.key),
        outcome: () => ({
          events: [
            { type: "state.updated", id: state.id, changes: ["category", "color"] },
            { type: "task.updated", id: task.id, changes: ["completedAt", "startedAt", "statusCategory"] },
          ],
        }),
      };
    },
  },
  {
    op: "DELETE /states/{id}",
    async prepare() {
      // Its task moves to `moveTo`: its own task.updated.
      const state = ok(
        await post(`/teams/${team.id}/states`, { key: "WALK_GONE", name: "Walk gone", category: "backlog" }, t.owner.key),
        201,
      ).state;
      const task = await newTask({ status: "WALK_GONE" });
      return {
        send: () => send("DELETE", `/states/${state.id}?moveTo=TODO`, owner()),
        outcome: () => ({
          events: [
            { type: "state.deleted", id: state.id },
            { type: "task.updated", id: task.id, changes: ["status", "statusCategory"] },
          ],
        }),
      };
    },
  },
  // Tasks, projects, milestones, comments.
  {
    op: "POST /tasks",
    async prepare() {
      return {
        send: () => post("/tasks", { teamId: team.id, title: "Created by the walk", priority: "HIGH" }, t.owner.key),
        outcome: (res) => ({ events: [{ type: "task.created", id: res.body.task.id }] }),
      };
    },
  },
  {
    op: "PATCH /tasks/{id}",
    async prepare() {
      const task = await newTask();
      // Through a JWT: the event says so.
      const bearer = await jwtOf(t.owner.userId, t.workspaceId);
      return {
        send: () => send("PATCH", `/tasks/${task.reference}`, { bearer }, { title: "Renamed", status: "DONE" }),
        // Its state's category and when it was entered come with the status.
        outcome: () => ({
          events: [{ type: "task.updated", id: task.id, changes: ["completedAt", "status", "statusCategory", "title"] }],
          via: "jwt",
        }),
      };
    },
  },
  {
    op: "DELETE /tasks/{id}",
    async prepare() {
      // Its subtask and comment go with it.
      const task = await newTask();
      const sub = await newTask({ parentId: task.id });
      const comment = ok(await post("/comments", { taskId: task.id, content: "going" }, t.owner.key), 201).comment;
      return {
        send: () => send("DELETE", `/tasks/${task.id}`, owner()),
        outcome: () => ({
          events: [
            { type: "task.deleted", id: task.id },
            { type: "task.deleted", id: sub.id },
            { type: "comment.deleted", id: comment.id },
          ],
        }),
      };
    },
  },
  {
    op: "POST /tasks/{id}/relations",
    async prepare() {
      // A duplicate: the relation, and the duplicate moved to its team's first canceled state, each its event.
      const [dup, original] = [await newTask(), await newTask()];
      return {
        send: () => post(`/tasks/${dup.reference}/relations`, { type: "duplicate_of", taskId: original.reference }, t.owner.key),
        outcome: (res) => ({
          events: [
            { type: "task_relation.created", id: res.body.relation.id },
            { type: "task.updated", id: dup.id, changes: ["canceledAt", "status", "statusCategory"] },
          ],
        }),
      };
    },
  },
  {
    op: "DELETE /tasks/{id}/relations/{relationId}",
    async prepare() {
      const [a, b] = [await newTask(), await newTask()];
      const relation = ok(await post(`/tasks/${a.id}/relations`, { type: "blocks", taskId: b.id }, t.owner.key), 201).relation;
      return {
        send: () => send("DELETE", `/tasks/${b.id}/relations/${relation.id}`, owner()),
        outcome: () => ({ events: [{ type: "task_relation.deleted", id: relation.id }] }),
      };
    },
  },
  {
    op: "POST /tasks/{id}/attachments",
    async prepare() {
      const task = await newTask();
      return {
        send: () => call("POST /tasks/{id}/attachments", `/tasks/${task.id}/attachments?filename=e.txt`, t.owner.key, "walked"),
        outcome: (res) => ({ events: [{ type: "attachment.created", id: res.body.attachment.id }] }),
      };
    },
  },
  {
    op: "POST /tasks/{id}/links",
    async prepare() {
      const task = await newTask();
      return {
        send: () => post(`/tasks/${task.reference}/links`, { url: "https://example.com/walked", title: "Walked" }, t.owner.key),
        outcome: (res) => ({ events: [{ type: "link.created", id: res.body.link.id }] }),
      };
    },
  },
  // A bulk write: one task.updated per task it changes.
  {
    op: "POST /tasks/bulk",
    async prepare() {
      const [a, b] = [await newTask(), await newTask()];
      return {
        send: () => post("/tasks/bulk", { ids: [a.reference, b.id], set: { priority: "URGENT" } }, t.owner.key),
        outcome: () => ({
          events: [
            { type: "task.updated", id: a.id },
            { type: "task.updated", id: b.id },
          ],
        }),
      };
    },
  },
  // Claims: a claim and a release are events of the task.
  {
    op: "POST /tasks/claim",
    async prepare() {
      const task = await newTask();
      return {
        send: () => post("/tasks/claim", { filter: { eq: { id: task.id } } }, t.owner.key),
        outcome: () => ({ events: [{ type: "task.claimed", id: task.id }] }),
      };
    },
  },
  {
    op: "POST /tasks/{id}/claim",
    async prepare() {
      const task = await newTask();
      return {
        send: () => post(`/tasks/${task.reference}/claim`, { leaseSeconds: 60 }, t.owner.key),
        outcome: () => ({ events: [{ type: "task.claimed", id: task.id }] }),
      };
    },
  },
  {
    op: "DELETE /tasks/{id}/claim",
    async prepare() {
      const task = await newTask();
      ok(await post(`/tasks/${task.id}/claim`, {}, t.owner.key), 200);
      return {
        send: () => send("DELETE", `/tasks/${task.id}/claim`, owner()),
        outcome: () => ({ events: [{ type: "task.released", id: task.id }] }),
      };
    },
  },
  // Agent sessions: a person's prompt is an activity and moves the session; a stop moves it for good.
  {
    op: "POST /agent-sessions/{id}/activities",
    async prepare() {
      const session = await newSession();
      return {
        send: () => post(`/agent-sessions/${session}/activities`, { type: "prompt", body: "Walked" }, t.owner.key),
        outcome: (res) => ({
          events: [
            { type: "agent_activity.created", id: res.body.activity.id },
            { type: "agent_session.prompted", id: session },
          ],
        }),
      };
    },
  },
  {
    op: "POST /agent-sessions/{id}/stop",
    async prepare() {
      const session = await newSession();
      return {
        send: () => post(`/agent-sessions/${session}/stop`, {}, t.owner.key),
        outcome: () => ({ events: [{ type: "agent_session.stopped", id: session }] }),
      };
    },
  },
  {
    op: "POST /tasks/{id}/worklogs",
    async prepare() {
      const task = await newTask();
      return {
        send: () => post(`/tasks/${task.reference}/worklogs`, { startedAt: "2026-03-02T09:00:00Z", duration: "1h" }, t.owner.key),
        outcome: (res) => ({ events: [{ type: "worklog.created", id: res.body.worklog.id }] }),
      };
    },
  },
  {
    op: "PATCH /worklogs/{id}",
    async prepare() {
      const task = await newTask();
      const body = { startedAt: "2026-03-02T09:00:00Z", durationSeconds: 60 };
      const worklog = ok(await post(`/tasks/${task.id}/worklogs`, body, t.owner.key), 201).worklog;
      return {
        send: () => patch(`/worklogs/${worklog.id}`, { duration: "2m", note: "Walked" }, t.owner.key),
        outcome: () => ({ events: [{ type: "worklog.updated", id: worklog.id, changes: ["durationSeconds", "note"] }] }),
      };
    },
  },
  {
    op: "DELETE /worklogs/{id}",
    async prepare() {
      const task = await newTask();
      const body = { startedAt: "2026-03-02T09:00:00Z", durationSeconds: 60 };
      const worklog = ok(await post(`/tasks/${task.id}/worklogs`, body, t.owner.key), 201).worklog;
      return {
        send: () => send("DELETE", `/worklogs/${worklog.id}`, owner()),
        outcome: () => ({ events: [{ type: "worklog.deleted", id: worklog.id }] }),
      };
    },
  },
  {
    op: "POST /comments/{id}/attachments",
    async prepare() {
      const comment = ok(await post("/comments", { taskId: (await newTask()).id, content: "c" }, t.owner.key), 201).comment;
      return {
        send: () => call("POST /comments/{id}/attachments", `/comments/${comment.id}/attachments?filename=e.txt`, t.owner.key, "walked"),
        outcome: (res) => ({ events: [{ type: "attachment.created", id: res.body.attachment.id }] }),
      };
    },
  },
  {
    op: "DELETE /attachments/{id}",
    async prepare() {
      const task = await newTask();
      const path = `/tasks/${task.id}/attachments?filename=e.txt`;
      const { attachment } = ok(await call("POST /tasks/{id}/attachments", path, t.owner.key, "walked"), 201);
      return {
        send: () => send("DELETE", `/attachments/${attachment.id}`, owner()),
        outcome: () => ({ events: [{ type: "attachment.deleted", id: attachment.id }] }),
      };
    },
  },
  {
    op: "DELETE /links/{id}",
    async prepare() {
      const task = await newTask();
      const link = ok(await post(`/tasks/${task.id}/links`, { url: "https://example.com/doomed" }, t.owner.key), 201).link;
      return {
        send: () => send("DELETE", `/links/${link.id}`, owner()),
        outcome: () => ({ events: [{ type: "link.deleted", id: link.id }] }),
      };
    },
  },
  {
    op: "POST /projects",
    async prepare() {
      return {
        send: () => post("/projects", { teamId: team.id, name: "Walked project" }, t.owner.key),
        outcome: (res) => ({ events: [{ type: "project.created", id: res.body.project.id }] }),
      };
    },
  },
  {
    op: "PATCH /projects/{id}",
    async prepare() {
      const project = await newProject();
      const label = await newLabel();
      return {
        send: () => patch(`/projects/${project.reference}`, { status: "ACTIVE", labelIds: [label.id] }, t.owner.key),
        outcome: () => ({ events: [{ type: "project.updated", id: project.id, changes: ["labelIds", "status"] }] }),
      };
    },
  },
  {
    op: "DELETE /projects/{id}",
    async prepare() {
      // Its task stays, with projectId null: a change of the task.
      const project = await newProject();
      const task = await newTask({ projectId: project.id });
      return {
        send: () => send("DELETE", `/projects/${project.id}`, owner()),
        outcome: () => ({
          events: [
            { type: "project.deleted", id: project.id },
            { type: "task.updated", id: task.id, changes: ["projectId"] },
          ],
        }),
      };
    },
  },
  {
    op: "POST /milestones",
    async prepare() {
      const project = await newProject();
      const bearer = await jwtOf(t.owner.userId, t.workspaceId);
      return {
        send: () => send("POST", "/milestones", { bearer }, { projectId: project.id, name: "M1" }),
        outcome: (res) => ({ events: [{ type: "milestone.created", id: res.body.milestone.id }], via: "jwt" }),
      };
    },
  },
  {
    op: "PATCH /milestones/{id}",
    async prepare() {
      const project = await newProject();
      const milestone = ok(await post("/milestones", { projectId: project.id, name: "M" }, t.owner.key), 201).milestone;
      return {
        send: () => patch(`/milestones/${milestone.id}`, { status: "DONE" }, t.owner.key),
        outcome: () => ({ events: [{ type: "milestone.updated", id: milestone.id, changes: ["status"] }] }),
      };
    },
  },
  {
    op: "DELETE /milestones/{id}",
    async prepare() {
      const project = await newProject();
      const milestone = ok(await post("/milestones", { projectId: project.id, name: "M" }, t.owner.key), 201).milestone;
      return {
        send: () => send("DELETE", `/milestones/${milestone.id}`, owner()),
        outcome: () => ({ events: [{ type: "milestone.deleted", id: milestone.id }] }),
      };
    },
  },
  {
    op: "POST /cycles",
    async prepare() {
      return {
        send: () => post("/cycles", cycleBody(), t.owner.key),
        outcome: (res) => ({ events: [{ type: "cycle.created", id: res.body.cycle.id }] }),
      };
    },
  },
  {
    op: "PATCH /cycles/{id}",
    async prepare() {
      const cycle = await newCycle();
      return {
        send: () => patch(`/cycles/${cycle.id}`, { name: "Renamed" }, t.owner.key),
        outcome: () => ({ events: [{ type: "cycle.updated", id: cycle.id, changes: ["name"] }] }),
      };
    },
  },
  {
    op: "DELETE /cycles/{id}",
    async prepare() {
      const cycle = await newCycle();
      const task = await newTask({ cycleId: cycle.id });
      return {
        send: () => send("DELETE", `/cycles/${cycle.id}`, owner()),
        outcome: () => ({
          events: [
            { type: "cycle.deleted", id: cycle.id },
            { type: "task.updated", id: task.id, changes: ["cycleId"] },
          ],
        }),
      };
    },
  },
  {
    op: "POST /comments",
    async prepare() {
      const task = await newTask();
      // As a team MEMBER: the actor is who wrote, not the reader.
      return {
        send: () => post("/comments", { taskId: task.id, content: "From a member" }, member.key),
        outcome: (res) => ({ events: [{ type: "comment.created", id: res.body.comment.id }], actor: member.userId }),
      };
    },
  },
  {
    op: "POST /projects/{id}/comments",
    async prepare() {
      const project = await newProject();
      return {
        send: () => post(`/projects/${project.reference}/comments`, { content: "On the project" }, t.owner.key),
        outcome: (res) => ({ events: [{ type: "comment.created", id: res.body.comment.id }] }),
      };
    },
  },
  {
    op: "PATCH /comments/{id}",
    async prepare() {
      const task = await newTask();
      const comment = ok(await post("/comments", { taskId: task.id, content: "draft" }, t.owner.key), 201).comment;
      return {
        send: () => patch(`/comments/${comment.id}`, { content: "final" }, t.owner.key),
        outcome: () => ({ events: [{ type: "comment.updated", id: comment.id, changes: ["content"] }] }),
      };
    },
  },
  {
    op: "DELETE /comments/{id}",
    async prepare() {
      const task = await newTask();
      const comment = ok(await post("/comments", { taskId: task.id, content: "doomed" }, member.key), 201).comment;
      return {
        send: () => send("DELETE", `/comments/${comment.id}`, owner()),
        outcome: () => ({ events: [{ type: "comment.deleted", id: comment.id }] }),
      };
    },
  },
  // Imports: events of what they create, by the caller, via "import".
  {
    op: "POST /teams/{id}/import",
    async prepare() {
      const source = await newTeam(t);
      const project = ok(await post("/projects", { teamId: source.id, name: "Imported project" }, t.owner.key), 201).project;
      const milestone = ok(await post("/milestones", { projectId: project.id, name: "Imported M" }, t.owner.key), 201).milestone;
      const label = await newLabel();
      const task = ok(
        await post(
          "/tasks",
          { teamId: source.id, title: "Imported task", projectId: project.id, milestoneId: milestone.id, labelIds: [label.id] },
          t.owner.key,
        ),
        201,
      ).task;
      await post("/comments", { taskId: task.id, content: "Imported comment" }, t.owner.key);
      const exported = ok(await get(`/teams/${source.id}/export`, t.owner.key), 200);
      const target = await newTeam(t);
      const existing = async () => [
        ...created(ok(await get(`/teams/${target.id}/export`, t.owner.key), 200)).map((w) => w.id),
        ...(ok(await get("/labels?limit=250", t.owner.key), 200).labels as any[]).map((l) => l.id),
        ...(ok(await get("/fields?limit=250", t.owner.key), 200).fields as any[]).map((f) => f.id),
      ];
      const before = new Set(await existing());
      return {
        send: () => post(`/teams/${target.id}/import`, { data: exported, update: false }, t.owner.key),
        async outcome() {
          const after = created(ok(await get(`/teams/${target.id}/export`, t.owner.key), 200));
          // The target team itself is not created by the import; labels map by name onto the workspace's own.
          const events = after.filter((w) => !before.has(w.id) && w.type !== "team.created");
          expect(events.filter((w) => w.type === "task.created")).toHaveLength(1);
          return { events, via: "import" };
        },
      };
    },
  },
  {
    op: "POST /workspaces/import",
    async prepare() {
      const source = await newTenant("Walk source");
      const sourceTeam = await newTeam(source);
      const label = ok(await post("/labels", { name: "Exported", color: "#abcdef" }, source.owner.key), 201).label;
      const task = ok(await post("/tasks", { teamId: sourceTeam.id, title: "Exported", labelIds: [label.id] }, source.owner.key), 201).task;
      await post("/comments", { taskId: task.id, content: "Exported comment" }, source.owner.key);
      const exported = ok(await get(`/workspaces/${source.workspaceId}/export`, source.owner.key), 200);
      return {
        send: () => post("/workspaces/import", { data: exported }, source.owner.key),
        async outcome(res) {
          const workspaceId = res.body.workspace.id as string;
          const bearer = await jwtOf(source.owner.userId, workspaceId);
          const copy = ok(await send("GET", `/workspaces/${workspaceId}/export`, { bearer }), 200);
          const members = (copy.data.workspace.members ?? []) as any[];
          expect(created(copy).map((w) => w.type)).toEqual(
            expect.arrayContaining(["team.created", "team_member.created", "label.created", "task.created", "comment.created"]),
          );
          return {
            events: [
              { type: "workspace.created", id: workspaceId },
              ...members.map((m) => ({ type: m.type === "AGENT" ? "agent.created" : "member.joined", id: m.id ?? m.userId })),
              ...created(copy),
            ],
            actor: source.owner.userId,
            via: "import",
            reader: { bearer },
          };
        },
      };
    },
  },
  // An import sent in parts: its commit records what it creates, as POST /teams/{id}/import does.
  {
    op: "POST /imports/{id}/commit",
    async prepare() {
      const source = await newTeam(t);
      const task = ok(await post("/tasks", { teamId: source.id, title: "Imported in parts" }, t.owner.key), 201).task;
      await post("/comments", { taskId: task.id, content: "Imported comment" }, t.owner.key);
      const exported = ok(await get(`/teams/${source.id}/export`, t.owner.key), 200);
      const target = await newTeam(t);
      const opened = ok(await post("/imports", { teamId: target.id }, t.owner.key), 201).import;
      const tasksOnly = { ...exported, data: { ...exported.data, comments: [] } };
      const commentsOnly = {
        ...exported,
        data: { ...exported.data, tasks: [], users: [], labels: [], fields: [], teams: [], states: [] },
      };
      ok(await send("PUT", `/imports/${opened.id}/parts/1`, owner(), { data: tasksOnly }), 200);
      ok(await send("PUT", `/imports/${opened.id}/parts/2`, owner(), { data: commentsOnly }), 200);
      const exportedIds = async () => created(ok(await get(`/teams/${target.id}/export`, t.owner.key), 200));
      const before = new Set((await exportedIds()).map((w) => w.id));
      return {
        send: () => post(`/imports/${opened.id}/commit`, undefined, t.owner.key),
        async outcome() {
          const events = (await exportedIds()).filter((w) => !before.has(w.id));
          expect(events.map((w) => w.type).sort()).toEqual(["comment.created", "task.created"]);
          return { events, via: "import" };
        },
      };
    },
  },
  // Webhooks, once the document has them (a parallel branch adds them).
  {
    op: "POST /webhooks",
    optional: true,
    async prepare() {
      return {
        send: () => post("/webhooks", { url: "http://127.0.0.1:9/walk", events: ["task.*"] }, t.owner.key),
        outcome: (res) => ({ events: [{ type: "webhook.created", id: res.body.webhook.id }] }),
      };
    },
  },
  {
    op: "PATCH /webhooks/{id}",
    optional: true,
    async prepare() {
      const hook = ok(await post("/webhooks", { url: "http://127.0.0.1:9/walk", events: ["task.*"] }, t.owner.key), 201).webhook;
      return {
        send: () => patch(`/webhooks/${hook.id}`, { description: "walked" }, t.owner.key),
        outcome: () => ({ events: [{ type: "webhook.updated", id: hook.id, changes: ["description"] }] }),
      };
    },
  },
  {
    // The previous secret's expiry (24 h from now) is part of the webhook's image: a rotation is a change of it.
    op: "POST /webhooks/{id}/rotate-secret",
    optional: true,
    async prepare() {
      const hook = ok(await post("/webhooks", { url: "http://127.0.0.1:9/walk", events: ["task.*"] }, t.owner.key), 201).webhook;
      return {
        send: () => post(`/webhooks/${hook.id}/rotate-secret`, {}, t.owner.key),
        outcome: () => ({ events: [{ type: "webhook.updated", id: hook.id }] }),
      };
    },
  },
  {
    op: "DELETE /webhooks/{id}",
    optional: true,
    async prepare() {
      const hook = ok(await post("/webhooks", { url: "http://127.0.0.1:9/walk", events: ["task.*"] }, t.owner.key), 201).webhook;
      return {
        send: () => send("DELETE", `/webhooks/${hook.id}`, owner()),
        outcome: () => ({ events: [{ type: "webhook.deleted", id: hook.id }] }),
      };
    },
  },
];

/** The document's write operations, `METHOD /path`. */
function writeOperations(): string[] {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((method) => WRITE_METHODS.includes(method))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

const label = (w: Want) => `${w.type} ${w.id}`;
const labelOf = (event: any) => `${event.type} ${event.resourceId}`;

/**
 * Performs `entry` and checks the stream gained exactly its events, each saying who, how and in which request; `today`
 * tolerates a known defect's deviation.
 */
async function walk(entry: Entry, today: Today = {}) {
  const prepared = await entry.prepare();
  const marker = await lastEventId();
  const res = await prepared.send();
  expect(res.status, `${entry.op}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  const requestId = res.headers.get("x-request-id");
  expect(requestId).toBeTruthy();
  const outcome = await prepared.outcome(res);
  const events = outcome.reader ? await stream(outcome.reader) : await stream(owner(), marker);
  expect(events.map(labelOf).sort(), entry.op).toEqual(outcome.events.map(label).sort());
  const actor = "actor" in today ? today.actor : (outcome.actor ?? t.owner.userId);
  const via = "via" in today ? today.via : outcome.via === undefined ? "api_key" : outcome.via;
  for (const event of events) {
    const want = outcome.events.find((w) => label(w) === labelOf(event))!;
    const what = `${entry.op} → ${labelOf(event)}`;
    expect(event.requestId, `${what}: requestId`).toBe("requestId" in today ? today.requestId : requestId);
    expect(event.actor?.id ?? null, `${what}: actor`).toBe(actor);
    expect(event.actor?.via ?? null, `${what}: actor.via`).toBe(via);
    expect(event.data, `${what}: data`).toBeTruthy();
    if (want.changes) expect(Object.keys(event.changes ?? {}).sort(), `${what}: changes`).toEqual(want.changes);
  }
  return { res, events };
}

beforeAll(async () => {
  doc = ok(await get("/openapi.json"), 200);
  t = await newTenant("Walk Co");
  team = await newTeam(t, { prefix: "WLK" });
  member = await addMember(t, "MEMBER");
  await joinTeam(team, member, "MEMBER");
});

describe("every write operation of the OpenAPI document has its events", () => {
  it("each write operation is in the table or excluded with a reason; the table names no operation the document lacks", () => {
    const ops = writeOperations();
    expect(ops.length).toBeGreaterThan(30);
    const tabled = new Set(TABLE.map((e) => e.op));
    expect(tabled.size, "an operation is in the table twice").toBe(TABLE.length);
    const unknown = ops.filter((op) => !tabled.has(op) && !(op in EXCLUDED));
    expect(unknown, "write operations neither walked nor excluded: add them to TABLE (or EXCLUDED with the reason)").toEqual([]);
    const both = ops.filter((op) => tabled.has(op) && op in EXCLUDED);
    expect(both).toEqual([]);
    const stale = TABLE.filter((e) => !e.optional && !ops.includes(e.op)).map((e) => e.op);
    expect(stale, "table entries for operations the document does not have").toEqual([]);
  });

  for (const entry of TABLE) {
    const inDocument = (ctx: { skip: () => void }) => {
      if (writeOperations().includes(entry.op)) return true;
      if (entry.optional) ctx.skip();
      throw new Error(`${entry.op} is not in the document`);
    };
    const defect = KNOWN_DEFECTS[entry.op];
    if (!defect) {
      it(entry.op, async (ctx) => {
        if (inDocument(ctx)) await walk(entry);
      });
      continue;
    }
    it.fails(`${entry.op} — KNOWN DEFECT: ${defect.what}`, async (ctx) => {
      if (inDocument(ctx)) await walk(entry);
    });
    it(`${entry.op} (apart from its known defect)`, async (ctx) => {
      if (inDocument(ctx)) await walk(entry, defect.today);
    });
  }

  it("a known defect names an operation of the table", () => {
    const tabled = TABLE.map((e) => e.op);
    expect(Object.keys(KNOWN_DEFECTS).filter((op) => !tabled.includes(op))).toEqual([]);
  });
});

/** The events a request wrote, read from the table itself (any workspace): a refused write must have none. */
const eventsOfRequest = async (res: ApiResponse) => {
  const requestId = res.headers.get("x-request-id");
  expect(requestId).toBeTruthy();
  return withDb(async (db) => {
    const { rows } = await db.execute<{ n: number }>(sql`select count(*)::int as n from events where request_id = ${requestId}`);
    return rows[0].n;
  });
};

/** Runs a write that must be refused with `status` and checks it added no event (to the stream, nor anywhere). */
async function refused(attempt: () => Promise<ApiResponse>, status: number) {
  const marker = await lastEventId();
  const res = await attempt();
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(await stream(owner(), marker)).toEqual([]);
  expect(await eventsOfRequest(res)).toBe(0);
  return res;
}

describe("a refused or failed write adds no event", () => {
  let viewer: Member;
  beforeAll(async () => {
    viewer = await addMember(t, "MEMBER");
    await joinTeam(team, viewer, "VIEWER");
  });

  it("creates: a VIEWER's task (403), an invalid task (422), a label of a taken name (409), a field by a MEMBER (403)", async () => {
    await refused(() => post("/tasks", { teamId: team.id, title: "Viewer's" }, viewer.key), 403);
    await refused(() => post("/tasks", { teamId: team.id, title: "Bad", priority: "SOMEDAY" }, t.owner.key), 422);
    const taken = await newLabel();
    await refused(() => post("/labels", { name: taken.name.toUpperCase(), color: "#000000" }, t.owner.key), 409);
    await refused(() => post("/fields", { key: "member_field", name: "No", type: "text", recordTypes: ["task"] }, member.key), 403);
  });

  it("a create that the database refuses in its insert (a team prefix taken: 409)", async () => {
    await refused(() => post("/teams", { name: "Twin", prefix: team.prefix }, t.owner.key), 409);
  });

  it("updates: another workspace's label (404), a label by a MEMBER who did not make it (403), a stale If-Match (412)", async () => {
    const label = await newLabel();
    const other = await newTenant("Walk intruder");
    await refused(() => patch(`/labels/${label.id}`, { color: "#111111" }, other.owner.key), 404);
    await refused(() => patch(`/labels/${label.id}`, { color: "#111111" }, member.key), 403);
    const task = await newTask();
    const etag = (await get(`/tasks/${task.id}`, t.owner.key)).headers.get("etag")!;
    expect(etag).toBeTruthy();
    ok(await patch(`/tasks/${task.id}`, { title: "Moved on" }, t.owner.key), 200);
    await refused(
      () => api("PATCH", `/tasks/${task.id}`, { key: t.owner.key, body: { title: "Stale" }, headers: { "if-match": etag } }),
      412,
    );
    const lastOwner = await membershipOf(team.id, t.owner.userId);
    await refused(() => patch(`/team-members/${lastOwner}`, { role: "MEMBER" }, t.owner.key), 409);
  });

  it("deletes: someone else's comment by a MEMBER (403), a team by a MEMBER (403), the last OWNER (409), a gone task (404)", async () => {
    const task = await newTask();
    const comment = ok(await post("/comments", { taskId: task.id, content: "mine" }, t.owner.key), 201).comment;
    await refused(() => send("DELETE", `/comments/${comment.id}`, { key: member.key }), 403);
    await refused(() => send("DELETE", `/teams/${team.id}`, { key: member.key }), 403);
    await refused(() => send("DELETE", `/users/${t.owner.userId}`, owner()), 409);
    expect((await send("DELETE", `/tasks/${task.id}`, owner())).status).toBe(204);
    await refused(() => send("DELETE", `/tasks/${task.id}`, owner()), 404);
  });

  it("imports rejected as a whole: a team export with a shared id (422), a workspace whose teams form a cycle (422, after the new workspace's rows were written in its transaction)", async () => {
    const source = await newTeam(t);
    ok(await post("/tasks", { teamId: source.id, title: "One" }, t.owner.key), 201);
    ok(await post("/tasks", { teamId: source.id, title: "Two" }, t.owner.key), 201);
    const exported = ok(await get(`/teams/${source.id}/export`, t.owner.key), 200);
    exported.data.tasks[1].id = exported.data.tasks[0].id;
    const target = await newTeam(t);
    await refused(() => post(`/teams/${target.id}/import`, { data: exported, update: false }, t.owner.key), 422);

    const cyclic = await newTenant("Walk cyclic");
    const [a, b] = [await newTeam(cyclic), await newTeam(cyclic)];
    const doc = ok(await get(`/workspaces/${cyclic.workspaceId}/export`, cyclic.owner.key), 200);
    const at = (id: string) => doc.data.teams.findIndex((x: any) => x.id === id);
    doc.data.teams[at(a.id)].parentId = b.id;
    doc.data.teams[at(b.id)].parentId = a.id;
    // importWorkspace inserts the workspace and its OWNER, then plans the rest and fails: all of it rolls back.
    await refused(() => post("/workspaces/import", { data: doc }, cyclic.owner.key), 422);
  });

  it("POST /batch runs no write: a POST item is an error slot, and nothing is recorded", async () => {
    const res = await refused(() => post("/batch", { requests: ["POST /tasks", "DELETE /labels/x"] }, t.owner.key), 200);
    expect(JSON.stringify(res.body)).toContain("BAD_REQUEST");
  });

  it("an Idempotency-Key replay returns the first answer and records no second event", async () => {
    const headers = { "idempotency-key": `walk-${Date.now()}` };
    const body = { teamId: team.id, title: "Once" };
    const marker = await lastEventId();
    const first = await api("POST", "/tasks", { key: t.owner.key, body, headers });
    expect(first.status).toBe(201);
    const replay = await api("POST", "/tasks", { key: t.owner.key, body, headers });
    expect(replay.status).toBe(201);
    expect(replay.body.task.id).toBe(first.body.task.id);
    const events = await stream(owner(), marker);
    expect(events.map(labelOf)).toEqual([`task.created ${first.body.task.id}`]);
    expect(events[0].requestId).toBe(first.headers.get("x-request-id"));
  });
});

// MCP: not in the OpenAPI document (JSON-RPC); its write tools are walked the same way, from tools/list.
const mcp = (cred: Cred, id: number, method: string, params: Record<string, unknown>) =>
  api("POST", "/mcp", {
    ...cred,
    body: { jsonrpc: "2.0", id, method, params },
    headers: { accept: "application/json, text/event-stream" },
  });

type McpCase = { args: Record<string, unknown>; events: (result: any) => Want[] };
/** Each write tool: its arguments (given a task of the walk's team) and the events its result must produce. */
const MCP_TABLE: Record<string, (task: any) => McpCase | Promise<McpCase>> = {
  // A notification is no event (docs/api.md, "Inbox"): marking one read writes none.
  mark_read: async (task) => {
    const { handle } = ok(await get(`/users/${member.userId}`, member.key), 200).user;
    ok(await post("/comments", { taskId: task.id, content: `@${handle} see this` }, t.owner.key), 201);
    const [notification] = ok(await get(`/notifications?filter[eq][taskId]=${task.id}`, member.key), 200).notifications;
    return { args: { id: notification.id }, events: () => [] };
  },
  create_task: () => ({
    args: { teamId: team.id, title: "By MCP" },
    events: (r) => [{ type: "task.created", id: r.task.id }],
  }),
  update_task: (task) => ({
    args: { id: task.reference, priority: "URGENT" },
    events: () => [{ type: "task.updated", id: task.id, changes: ["priority"] }],
  }),
  bulk_update_tasks: (task) => ({
    args: { ids: [task.reference], set: { priority: "URGENT" } },
    events: () => [{ type: "task.updated", id: task.id, changes: ["priority"] }],
  }),
  add_comment: (task) => ({
    args: { taskId: task.reference, content: "By MCP" },
    events: (r) => [{ type: "comment.created", id: r.comment.id }],
  }),
  create_milestone: async () => ({
    args: { projectId: (await newProject()).reference, name: "By MCP" },
    events: (r) => [{ type: "milestone.created", id: r.milestone.id }],
  }),
  link_tasks: async (task) => ({
    args: { id: task.reference, type: "related", taskId: (await newTask()).reference },
    events: (r) => [{ type: "task_relation.created", id: r.relation.id }],
  }),
  unlink_tasks: async (task) => {
    const other = await newTask();
    const { relation } = ok(
      await api("POST", `/tasks/${task.id}/relations`, { ...owner(), body: { type: "related", taskId: other.id } }),
      201,
    );
    return { args: { id: task.reference, relationId: relation.id }, events: () => [{ type: "task_relation.deleted", id: relation.id }] };
  },
  add_link: (task) => ({
    args: { id: task.reference, url: "https://example.com/by-mcp" },
    events: (r) => [{ type: "link.created", id: r.link.id }],
  }),
  log_time: (task) => ({
    args: { id: task.reference, duration: "30m", note: "By MCP" },
    events: (r) => [{ type: "worklog.created", id: r.worklog.id }],
  }),
  claim_task: (task) => ({ args: { id: task.reference }, events: () => [{ type: "task.claimed", id: task.id }] }),
  release_task: async (task) => {
    // The tools run as the member, who releases its own claim.
    ok(await api("POST", `/tasks/${task.id}/claim`, { key: member.key, body: {} }), 200);
    return { args: { id: task.reference }, events: () => [{ type: "task.released", id: task.id }] };
  },
  post_activity: async () => {
    const session = await newSession();
    return {
      args: { id: session, type: "prompt", body: "By MCP" },
      events: (r) => [
        { type: "agent_activity.created", id: r.activity.id },
        { type: "agent_session.prompted", id: session },
      ],
    };
  },
  delete_task: async (task) => {
    // Its subtask goes with it; by reference, as an agent names it.
    const sub = await newTask({ parentId: task.id });
    return {
      args: { id: task.reference },
      events: () => [
        { type: "task.deleted", id: task.id },
        { type: "task.deleted", id: sub.id },
      ],
    };
  },
  delete_comment: async (task) => {
    const comment = ok(await post("/comments", { taskId: task.id, content: "doomed" }, member.key), 201).comment;
    return { args: { id: comment.id }, events: () => [{ type: "comment.deleted", id: comment.id }] };
  },
  create_project: () => ({
    args: { teamId: team.prefix, name: "By MCP" },
    events: (r) => [{ type: "project.created", id: r.project.id }],
  }),
  update_project: async () => {
    const project = await newProject();
    return {
      args: { id: project.reference, status: "ACTIVE" },
      events: () => [{ type: "project.updated", id: project.id, changes: ["status"] }],
    };
  },
  create_label: () => ({
    args: { name: `mcp-${Math.random().toString(36).slice(2, 10)}`, color: "#00aa00" },
    events: (r) => [{ type: "label.created", id: r.label.id }],
  }),
  // The member's own labels: changing or deleting one needs its creator (or an ADMIN); by name, as an agent names it.
  update_label: async () => {
    const label = ok(
      await post("/labels", { name: `mcp-${Math.random().toString(36).slice(2, 10)}`, color: "#123456" }, member.key),
      201,
    ).label;
    return { args: { id: label.name, color: "#654321" }, events: () => [{ type: "label.updated", id: label.id, changes: ["color"] }] };
  },
  delete_label: async (task) => {
    const label = ok(
      await post("/labels", { name: `mcp-${Math.random().toString(36).slice(2, 10)}`, color: "#123456" }, member.key),
      201,
    ).label;
    await patch(`/tasks/${task.id}`, { labelIds: [label.id] }, t.owner.key);
    return {
      args: { id: label.name.toUpperCase() },
      events: () => [
        { type: "label.deleted", id: label.id },
        { type: "task.updated", id: task.id, changes: ["labelIds"] },
      ],
    };
  },
};

describe("MCP write tools have their events, via mcp", () => {
  it("every tool that is not read-only is in MCP_TABLE", async () => {
    const listed = ok(await mcp(owner(), 1, "tools/list", {}), 200).result.tools as any[];
    const writers = listed.filter((tool) => tool.annotations?.readOnlyHint !== true).map((tool) => tool.name);
    expect(writers.length).toBeGreaterThan(0);
    expect(
      writers.filter((name) => !(name in MCP_TABLE)),
      "write tools missing from MCP_TABLE",
    ).toEqual([]);
    expect(
      Object.keys(MCP_TABLE).filter((name) => !writers.includes(name)),
      "MCP_TABLE names no such write tool",
    ).toEqual([]);
  });

  for (const [name, make] of Object.entries(MCP_TABLE)) {
    it(`tools/call ${name}`, async () => {
      const { args, events: expected } = await make(await newTask());
      const marker = await lastEventId();
      const res = await mcp({ key: member.key }, 2, "tools/call", { name, arguments: args });
      const result = ok(res, 200).result;
      expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
      const wants = expected(result.structuredContent);
      const events = await stream(owner(), marker);
      expect(events.map(labelOf).sort()).toEqual(wants.map(label).sort());
      for (const event of events) {
        expect(event.requestId).toBe(res.headers.get("x-request-id"));
        expect(event.actor).toMatchObject({ id: member.userId, via: "mcp" });
        const want = wants.find((w) => label(w) === labelOf(event))!;
        if (want.changes) expect(Object.keys(event.changes ?? {}).sort()).toEqual(want.changes);
      }
    });
  }

  it("a refused tool call (another workspace's task) adds no event", async () => {
    const task = await newTask();
    const other = await newTenant("Walk MCP intruder");
    const marker = await lastEventId();
    const res = await mcp({ key: other.owner.key }, 3, "tools/call", { name: "update_task", arguments: { id: task.id, title: "Mine" } });
    expect(ok(res, 200).result.isError).toBe(true);
    expect(await stream(owner(), marker)).toEqual([]);
    expect(await eventsOfRequest(res)).toBe(0);
  });
});
