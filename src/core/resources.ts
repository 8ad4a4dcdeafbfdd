// The register of resources (docs/architecture.md, "Adding a resource"): what the rest of the service derives from each
// resource, each entry its folder's `register.ts` (src/resources/<name>/register.ts, on the core floor: it imports only
// the scope names): the OpenAPI tag of its operations, the scope a write to it needs, what the scope `read` reads there,
// whether its PATCH and DELETE honour If-Match (and the table whose row they lock), the event types its changes write
// (with the tables the triggers watch), and the constraints a write can break with the error that explains each. This
// file is the ordered list of them; it sits below everything (the event types, the scopes and the error mapper derive
// from it), and the list of modules (src/resources/index.ts) keeps this order. test/register.test.ts compares every
// derived list, the document and the database's triggers with it.
import account from "../resources/account/register";
import agentSessions from "../resources/agent-sessions/register";
import agents from "../resources/agents/register";
import apiKeys from "../resources/api-keys/register";
import attachments from "../resources/attachments/register";
import batch from "../resources/batch/register";
import comments from "../resources/comments/register";
import cycles from "../resources/cycles/register";
import device from "../resources/device/register";
import events from "../resources/events/register";
import fields from "../resources/fields/register";
import invites from "../resources/invites/register";
import labels from "../resources/labels/register";
import links from "../resources/links/register";
import login from "../resources/login/register";
import me from "../resources/me/register";
import milestones from "../resources/milestones/register";
import notifications from "../resources/notifications/register";
import oauth from "../resources/oauth/register";
import projects from "../resources/projects/register";
import relations from "../resources/relations/register";
import search from "../resources/search/register";
import signup from "../resources/signup/register";
import states from "../resources/states/register";
import sync from "../resources/sync/register";
import system from "../resources/system/register";
import tasks from "../resources/tasks/register";
import teamMembers from "../resources/team-members/register";
import teams from "../resources/teams/register";
import transfer, { imports } from "../resources/transfer/register";
import users from "../resources/users/register";
import webhooks from "../resources/webhooks/register";
import worklogs from "../resources/worklogs/register";
import workspaces from "../resources/workspaces/register";
import type { Scope } from "./scope-names";

/** The document's tags (every operation's tag is one of them), in reading order, with what each groups. */
export const TAGS = {
  Account: "Sign-up, login by emailed code, the caller (`/me`), the account page (HTML) and the keys that verify issued JWTs.",
  "Device flow": "Logging a script or CLI in (RFC 8628): a device code, approval by a person, a JWT.",
  OAuth: "The service as an OAuth 2.1 authorization server for agent hosts (MCP): metadata, registration, consent, tokens, grants.",
  Users: "The members of the current workspace, people and agents, with their workspace role.",
  Workspaces: "The caller's workspaces.",
  Invites: "Inviting people into the workspace (and its teams) by email.",
  Agents: "AI agents: workspace members owned by a person, with their own API key.",
  "API keys": "The caller's API keys and those of the caller's agents.",
  Teams: "Teams (nested, no cycles); each has a prefix that starts its task and project references.",
  "Team members": "Team memberships and their roles (OWNER, ADMIN, MEMBER, VIEWER).",
  "Workflow states":
    "A team's ordered workflow states: what a task's `status` holds, and what it means (its category: backlog, unstarted, started, completed, canceled).",
  Tasks: "Tasks by id or reference (`ENG-12`), with subtasks, labels, assignee, project and milestone.",
  "Agent sessions":
    "Agents at work on delegated tasks: a session per delegation, its state from the agent's activities, people's prompts and stop.",
  Inbox: "What needs the caller: notifications of mentions, assignments, delegations, comments and status changes; following tasks.",
  Projects: "Projects by id or reference (`ENG-P3`), with lead, labels and dates.",
  Milestones: "Milestones of a project.",
  Cycles: "A team's time-boxed iterations (`ENG-C3`), their progress, day-by-day history, burn-up picture and the team's velocity.",
  Comments: "Markdown comments on tasks, projects and milestones.",
  Attachments: "Files on tasks and their comments: uploaded as raw bytes, downloaded as attachments.",
  Worklogs: "Time logged on tasks, and its sums for timesheets; tasks carry their estimate, what remains and the time spent.",
  Labels: "The workspace's labels, attached to tasks and projects.",
  Search: "Full-text search over the workspace's tasks, projects and milestones.",
  Batch: "Several GETs in one call, each with the caller's credential and the rules of the direct call.",
  Fields: "Built-in fields and the workspace's custom field definitions, whose values tasks and projects carry.",
  Events: "What changed, when and by whom: the workspace's event stream in commit order, and a record's history.",
  Webhooks: "Where the workspace's events are POSTed as they happen, signed per Standard Webhooks; their deliveries.",
  Imports: "An export too large for one request, sent in parts and imported in one transaction.",
  System: "Health, this document, its interactive reference, and development-only routes.",
} as const;
export type Tag = keyof typeof TAGS;

/** The event types of one resource type: the tables whose changes the triggers turn into them, and their actions. */
export interface EventSource {
  /** The tables of the record's stored image (its row, a member's user and membership). */
  tables: readonly string[];
  /** Join tables whose changes are changes of the record (a task's labels, task_labels). */
  joinTables?: readonly string[];
  /** Default: created, updated, deleted. */
  actions?: readonly string[];
}

export interface Resource {
  /** The OpenAPI tag of its operations. */
  tag: Tag;
  /** What its writes need (POST, PATCH, DELETE), unless a route declares another (src/http/policy.ts). */
  scope?: Scope;
  /** What the scope `read` reads here: the names of the records its GETs read (the first one unless a route declares another). */
  reads?: readonly string[];
  /** Also read by its write scope (besides `reads`): comments, the records they are on. */
  scopeAlsoReads?: readonly string[];
  /** What its answer embeds of other resources (their names in `reads`): a scope that reads it reads them too. */
  embeds?: readonly string[];
  /**
   * Whether its PATCH and DELETE honour If-Match (against the GET of the same path), unless a route declares otherwise;
   * stated by every resource that has one of them.
   */
  conditional?: boolean;
  /** The table whose row its conditional writes lock. */
  table?: string;
  /** The event types its changes write, by resource type (`task` → `task.created`, …). */
  events?: Readonly<Record<string, EventSource>>;
  /** Its unique keys a write can hit, each with the message of the 409 that explains it (src/http/error-mapper.ts). */
  conflicts?: Readonly<Record<string, string>>;
  /**
   * Its checks a write can fail in the statement that writes (a trigger's check_violation naming its constraint, an
   * exclusion constraint): the field the 422 names, and why (src/http/error-mapper.ts).
   */
  invalid?: Readonly<Record<string, readonly [field: string, message: string]>>;
}

/** Every resource, by the first segment of its paths (or its folder's name when its paths have none of their own), in order. */
export const RESOURCES = {
  system,
  signup,
  login,
  device,
  account,
  me,
  users,
  workspaces,
  invites,
  agents,
  "api-keys": apiKeys,
  labels,
  fields,
  teams,
  "team-members": teamMembers,
  states,
  tasks,
  relations,
  attachments,
  links,
  worklogs,
  "agent-sessions": agentSessions,
  notifications,
  projects,
  milestones,
  cycles,
  events,
  sync,
  comments,
  webhooks,
  search,
  transfer,
  imports,
  oauth,
  batch,
  // Mounted by the app after the others, with their tools (src/mcp/).
  mcp: { tag: "System" },
} as const satisfies Record<string, Resource>;

export type ResourceName = keyof typeof RESOURCES;
export const RESOURCE_NAMES = Object.keys(RESOURCES) as ResourceName[];
/** The register's entries, each with its name. */
export const REGISTERED: Array<Resource & { name: ResourceName }> = RESOURCE_NAMES.map((name) => ({ name, ...RESOURCES[name] }));

/** The resources whose PATCH and DELETE `/<name>/{id}` honour If-Match: name → the table of the row they lock. */
export const CONDITIONAL: Record<string, string> = Object.fromEntries(
  REGISTERED.flatMap((r) => (r.conditional && r.table ? [[r.name, r.table]] : [])),
);

/** The event resource types, each with its source (tables, actions), in the register's order. */
export const EVENT_SOURCES: Record<string, EventSource> = Object.fromEntries(REGISTERED.flatMap((r) => Object.entries(r.events ?? {})));
