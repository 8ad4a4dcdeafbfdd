// The whole database: every resource of the spec and the contract, one table each, scoped by workspace_id.
import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  date,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  pgView,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

// Millisecond precision: API timestamps carry milliseconds, and keyset cursors compare them exactly.
const ts = (name: string) => timestamp(name, { precision: 3, withTimezone: true, mode: "date" });

// GET /search reads a stored tsvector, search_vector, on tasks, projects and milestones (title/name weighted A,
// description D, the 'simple' configuration), written by a trigger (pm_search_vector, migration 0036). It is left out of
// the Drizzle tables on purpose: a typed INSERT … SELECT must list every declared column, and the trigger writes it.
// Its GIN index leads with the workspace (btree_gin, migration 0015): a search finds its own workspace's matches in the
// index, instead of every workspace's and then dropping the others' row by row (docs/performance.md, "A million tasks").
const searchIndex = (name: string, workspace: AnyPgColumn) => index(name).using("gin", workspace, sql`search_vector`);
/** An index of the rows that have `column` (a link another row's removal clears, or a count reads), not of those without. */
const linkIndex = (name: string, column: AnyPgColumn) =>
  index(name)
    .on(column)
    .where(sql`${sql.identifier(column.name)} is not null`);
const createdAt = () => ts("created_at").notNull().defaultNow();
const updatedAt = () => ts("updated_at").notNull().defaultNow();
/**
 * The team of a record that belongs to one through another (a milestone through its project, a comment through what it
 * is on), stored with it: its delete event keeps its team when the parent went first in the same cascade. The database
 * keeps it its parent's (migration 0017): left out, a trigger fills it in; named, a statement trigger checks it.
 */
const recordTeam = () => text("team_id").notNull().default(sql`null`);
const wsRef = () =>
  text("workspace_id")
    .notNull()
    .references(() => workspaces.id, { onDelete: "cascade" });

export const workspaceRole = pgEnum("workspace_role", ["MEMBER", "ADMIN", "OWNER"]);
export const teamRole = pgEnum("team_role", ["VIEWER", "MEMBER", "ADMIN", "OWNER"]);
export const userType = pgEnum("user_type", ["HUMAN", "AGENT"]);
/** What a workflow state means (contract §20), in the order a team's work goes; the rules that mean "done" name these. */
export const stateCategory = pgEnum("state_category", ["backlog", "unstarted", "started", "completed", "canceled"]);
export const taskPriority = pgEnum("task_priority", ["NONE", "LOW", "MEDIUM", "HIGH", "URGENT"]);
export const projectStatus = pgEnum("project_status", ["PLANNING", "ACTIVE", "PAUSED", "COMPLETED", "CANCELED"]);
export const milestoneStatus = pgEnum("milestone_status", ["PLANNED", "IN_PROGRESS", "DONE"]);
export const fieldType = pgEnum("field_type", ["text", "number", "boolean", "date", "url", "select", "multiselect", "user"]);
/** How a task relation is stored: `blocked_by` is `blocks` from the other side; `related` is stored once per pair. */
export const taskRelationType = pgEnum("task_relation_type", ["blocks", "duplicate_of", "related"]);
export const codePurpose = pgEnum("code_purpose", ["SIGNUP", "LOGIN"]);
/** An agent session's stored state: the last activity's (docs/agents.md); `stale` is read-time only. */
export const agentSessionState = pgEnum("agent_session_state", ["pending", "active", "awaiting_input", "complete", "error", "stopped"]);
export const agentActivityType = pgEnum("agent_activity_type", ["prompt", "thought", "action", "elicitation", "response", "error"]);
/** Which notifications a user also gets by email (docs/api.md, "Inbox"): none, mentions only (the default), or all. */
export const notificationEmail = pgEnum("notification_email", ["off", "mentions", "all"]);
export const notificationType = pgEnum("notification_type", ["mentioned", "assigned", "delegated", "commented", "status_changed"]);
export const deviceStatus = pgEnum("device_status", ["PENDING", "APPROVED", "DENIED", "CONSUMED"]);

export const workspaces = pgTable("workspaces", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  slug: text("slug").notNull().unique(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    // Agents get a generated address; humans sign up with theirs. Stored lower-cased.
    email: text("email").notNull(),
    avatarUrl: text("avatar_url"),
    type: userType("type").notNull().default("HUMAN"),
    humanId: text("human_id").references((): AnyPgColumn => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    // After the timestamps, as migration 0030 added them: a CTE's `returning *` and the table line up in a UNION.
    /**
     * How a mention names the user (`@handle`, contract §22): lower-case, unique in the service. Left out of an insert,
     * the database makes one from the name or the email (pm_user_handle), so every path that makes a user gives one.
     */
    handle: text("handle").notNull().default(sql`null`),
    notificationEmail: notificationEmail("notification_email").notNull().default("mentions"),
  },
  (t) => [
    uniqueIndex("users_email_key").on(t.email),
    index("users_human_id_idx").on(t.humanId),
    uniqueIndex("users_handle_key").on(t.handle),
    check("users_handle_form", sql`${t.handle} ~ '^[a-z0-9][a-z0-9-]{0,38}$'`),
  ],
);

export const workspaceMembers = pgTable(
  "workspace_members",
  {
    workspaceId: wsRef(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: workspaceRole("role").notNull().default("MEMBER"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.userId] }),
    index("workspace_members_user_idx").on(t.userId, t.createdAt),
    index("workspace_members_list_idx").on(t.workspaceId, t.createdAt, t.userId),
  ],
);

export const teams = pgTable(
  "teams",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    description: text("description").notNull().default(""),
    parentId: text("parent_id").references((): AnyPgColumn => teams.id, { onDelete: "set null" }),
    // Per-team reference counters, bumped in the same statement that inserts a task/project; never reused.
    taskCounter: integer("task_counter").notNull().default(0),
    projectCounter: integer("project_counter").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    // The cycles' reference counter (a column added after the others: `select *` unions list columns in table order).
    cycleCounter: integer("cycle_counter").notNull().default(0),
  },
  (t) => [
    uniqueIndex("teams_workspace_prefix_key").on(t.workspaceId, t.prefix),
    index("teams_list_idx").on(t.workspaceId, t.createdAt, t.id),
    index("teams_parent_idx").on(t.parentId),
  ],
);

/**
 * A team's former prefixes (docs/api.md, "Ids and names"): after `ENG` became `OPS`, `ENG-12`, `ENG-P1` and `ENG` still
 * name the same records, until another team takes `ENG`. Kept by the database's triggers on `teams`
 * (migrations/functions/pm_team_prefix.sql): a prefix a team takes leaves this table, so a prefix is here only while no
 * team holds it, and the name resolver (src/records/names.ts) reads it only for a prefix no team has now.
 */
export const teamFormerPrefixes = pgTable(
  "team_former_prefixes",
  {
    workspaceId: wsRef(),
    prefix: text("prefix").notNull(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    renamedAt: ts("renamed_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.prefix] }), index("team_former_prefixes_team_idx").on(t.teamId)],
);

export const teamMembers = pgTable(
  "team_members",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: teamRole("role").notNull().default("MEMBER"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("team_members_team_user_key").on(t.teamId, t.userId),
    index("team_members_user_idx").on(t.userId),
    index("team_members_list_idx").on(t.teamId, t.createdAt, t.id),
  ],
);

export const projects = pgTable(
  "projects",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    status: projectStatus("status").notNull().default("PLANNING"),
    leadId: text("lead_id").references(() => users.id, { onDelete: "set null" }),
    startDate: date("start_date", { mode: "string" }),
    targetDate: date("target_date", { mode: "string" }),
    customFields: jsonb("custom_fields").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("projects_team_number_key").on(t.teamId, t.number),
    index("projects_list_idx").on(t.workspaceId, t.createdAt, t.id),
    searchIndex("projects_search_idx", t.workspaceId),
  ],
);

export const milestones = pgTable(
  "milestones",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    teamId: recordTeam(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    status: milestoneStatus("status").notNull().default("PLANNED"),
    targetDate: date("target_date", { mode: "string" }),
    customFields: jsonb("custom_fields").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("milestones_project_idx").on(t.projectId, t.createdAt, t.id),
    index("milestones_list_idx").on(t.workspaceId, t.createdAt, t.id),
    searchIndex("milestones_search_idx", t.workspaceId),
  ],
);

/**
 * A team's workflow states (contract §20, `sta_…`): what a task's `status` holds is one of its team's keys. Every team
 * starts with the six defaults, a sub-team with a copy of its parent's (the trigger pm_team_states, migration 0030).
 */
export const workflowStates = pgTable(
  "workflow_states",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    teamId: text("team_id")
      .notNull()
      .references((): AnyPgColumn => teams.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    name: text("name").notNull(),
    /** How a task's `status` names it by name (any case): the trigger pm_task_state compares it. */
    nameKey: text("name_key").notNull().generatedAlwaysAs(sql`lower(name)`),
    category: stateCategory("category").notNull(),
    position: doublePrecision("position").notNull(),
    color: text("color").notNull(),
    description: text("description").notNull().default(""),
    creatorId: text("creator_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("workflow_states_team_key_key").on(t.teamId, t.key),
    uniqueIndex("workflow_states_team_name_key").on(t.teamId, t.nameKey),
    // A task list's status filter by a state's name (any team of the workspace the list reads).
    index("workflow_states_name_idx").on(t.nameKey),
    index("workflow_states_team_position_idx").on(t.teamId, t.position, t.id),
    index("workflow_states_workspace_idx").on(t.workspaceId, t.createdAt, t.id),
    check("workflow_states_key_form", sql`${t.key} ~ '^[A-Z0-9_]{1,32}$'`),
  ],
);

export const tasks = pgTable(
  "tasks",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    /**
     * A key of the team's workflow states (the foreign key below). Left out, the trigger pm_task_state gives the team's
     * first `unstarted` state; given by the state's name, it stores the key (migration 0030).
     */
    status: text("status").notNull().default(sql`null`),
    /** The state's category, and when the task entered it: kept by pm_task_state in the write's own statement. */
    statusCategory: stateCategory("status_category").notNull().default(sql`null`),
    startedAt: ts("started_at"),
    completedAt: ts("completed_at"),
    canceledAt: ts("canceled_at"),
    priority: taskPriority("priority").notNull().default("NONE"),
    dueDate: date("due_date", { mode: "string" }),
    /** Points; null when not estimated. */
    estimate: integer("estimate"),
    /** Time tracking (docs/api.md, "Time tracking"): the original estimate and what remains, in seconds; null when not set. */
    estimateSeconds: integer("estimate_seconds"),
    remainingSeconds: integer("remaining_seconds"),
    projectId: text("project_id").references(() => projects.id, { onDelete: "set null" }),
    milestoneId: text("milestone_id").references(() => milestones.id, { onDelete: "set null" }),
    parentId: text("parent_id").references((): AnyPgColumn => tasks.id, { onDelete: "cascade" }),
    assigneeId: text("assignee_id").references(() => users.id, { onDelete: "set null" }),
    /** The agent working on it for its assignee (contract §17); setting it opens an agent session. */
    delegateId: text("delegate_id").references(() => users.id, { onDelete: "set null" }),
    creatorId: text("creator_id").references(() => users.id, { onDelete: "set null" }),
    customFields: jsonb("custom_fields").$type<Record<string, unknown>>().notNull().default({}),
    /** The task's claim (docs/agents.md, "Claims"): who holds it until when; one past its expiry holds nothing. */
    claimHolderId: text("claim_holder_id").references(() => users.id, { onDelete: "set null" }),
    claimExpiresAt: ts("claim_expires_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** The cycle the task is planned in (docs/api.md, "Cycles"): one of its team's; cleared when the cycle is deleted (last: the table's column order). */
    cycleId: text("cycle_id").references((): AnyPgColumn => cycles.id, { onDelete: "set null" }),
  },
  (t) => [
    uniqueIndex("tasks_team_number_key").on(t.teamId, t.number),
    index("tasks_list_idx").on(t.workspaceId, t.createdAt, t.id),
    // A link's tasks (a subtask count, a foreign key's action when the project, milestone, parent, user or cycle goes):
    // only the tasks that have the link are in its index (as the claim holder's), so a write of a task without it does
    // not touch the index.
    linkIndex("tasks_project_idx", t.projectId),
    linkIndex("tasks_milestone_idx", t.milestoneId),
    linkIndex("tasks_parent_idx", t.parentId),
    linkIndex("tasks_assignee_idx", t.assigneeId),
    index("tasks_status_idx").on(t.workspaceId, t.status, t.createdAt, t.id),
    index("tasks_status_category_idx").on(t.workspaceId, t.statusCategory, t.createdAt, t.id),
    // A state's tasks (its delete's count and move, its new category, the foreign key's check when it goes).
    index("tasks_team_status_idx").on(t.teamId, t.status),
    foreignKey({
      name: "tasks_team_status_fk",
      columns: [t.teamId, t.status],
      foreignColumns: [workflowStates.teamId, workflowStates.key],
    }),
    // Keyset lists sorted by priority or updatedAt (either direction) walk these instead of sorting the workspace.
    index("tasks_priority_idx").on(t.workspaceId, t.priority, t.id),
    index("tasks_updated_idx").on(t.workspaceId, t.updatedAt, t.id),
    index("tasks_team_list_idx").on(t.workspaceId, t.teamId, t.createdAt, t.id),
    // filter[eq|neq|in][customFields.<key>] is jsonb containment (custom_fields @> {...}), which this index serves.
    index("tasks_custom_fields_idx").using("gin", t.customFields.op("jsonb_path_ops")),
    index("tasks_assignee_list_idx").on(t.workspaceId, t.assigneeId, t.createdAt, t.id),
    linkIndex("tasks_delegate_idx", t.delegateId),
    linkIndex("tasks_cycle_idx", t.cycleId),
    // What a user's removal clears (its foreign key's action); only claimed tasks are in it.
    index("tasks_claim_holder_idx").on(t.claimHolderId).where(sql`claim_holder_id is not null`),
    searchIndex("tasks_search_idx", t.workspaceId),
  ],
);

/**
 * A team's time-boxed iteration (docs/api.md, "Cycles"), numbered per team from its `cycle_counter` (`ENG-C3`). A team's
 * cycles never overlap: an exclusion constraint on (team_id, [starts_at, ends_at)) added by hand in its migration
 * (btree_gist), which holds under concurrent creates. `frozen_progress` is its progress as it was at its end, written
 * by the rollover that moves its open tasks on (null until then): bookkeeping, not a change (pm_image leaves it out).
 */
export const cycles = pgTable(
  "cycles",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    startsAt: ts("starts_at").notNull(),
    endsAt: ts("ends_at").notNull(),
    frozenProgress: jsonb("frozen_progress").$type<Record<string, unknown>>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("cycles_team_number_key").on(t.teamId, t.number),
    index("cycles_list_idx").on(t.workspaceId, t.createdAt, t.id),
    // The rollover's work: ended cycles not yet rolled over.
    index("cycles_due_idx").on(t.endsAt).where(sql`frozen_progress is null`),
    check("cycles_ends_after_start", sql`${t.endsAt} > ${t.startsAt}`),
  ],
);

/**
 * One stored edge per pair and meaning (docs/api.md, "Task relations"): `source blocks target`, `source duplicate_of
 * target`, `source related target` (source < target, so the pair is stored once). The tasks' teams are kept with the
 * edge (a task never changes team): its events name both, and the event of a relation deleted with its task still can.
 */
export const taskRelations = pgTable(
  "task_relations",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    type: taskRelationType("type").notNull(),
    sourceTaskId: text("source_task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    targetTaskId: text("target_task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    sourceTeamId: text("source_team_id").notNull(),
    targetTeamId: text("target_team_id").notNull(),
    creatorId: text("creator_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("task_relations_pair_key").on(t.sourceTaskId, t.targetTaskId, t.type),
    // A task's relations from the other side, and its blockers (blockedByCount, isBlocked).
    index("task_relations_target_idx").on(t.targetTaskId, t.type),
    check("task_relations_not_self", sql`${t.sourceTaskId} <> ${t.targetTaskId}`),
    check("task_relations_related_once", sql`${t.type} <> 'related' or ${t.sourceTaskId} < ${t.targetTaskId}`),
  ],
);

/**
 * Every relation as seen from each of its tasks (`taskId`), with the type read from that side (`blocks` seen from the
 * blocked task is `blocked_by`, `duplicate_of` from the original `duplicated_by`): created by migration 0020, so
 * drizzle-kit leaves it alone. A condition on `task_id` reaches both branches' indexes.
 */
export const taskRelationViews = pgView("task_relation_views", {
  id: text("id").notNull(),
  workspaceId: text("workspace_id").notNull(),
  taskId: text("task_id").notNull(),
  otherTaskId: text("other_task_id").notNull(),
  otherTeamId: text("other_team_id").notNull(),
  type: text("type").notNull(),
  creatorId: text("creator_id"),
  createdAt: ts("created_at").notNull(),
}).existing();

/**
 * Agent sessions (`ses_…`, contract §17): an agent working on a task it was delegated. `state` is the state its last
 * activity made (written with the activity, never by a request); at most one open session per task and agent, so a
 * delegation reuses it. Team and agent are kept with the session and each activity: events and webhooks filter by them.
 */
export const agentSessions = pgTable(
  "agent_sessions",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    teamId: text("team_id").notNull(),
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    agentId: text("agent_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    state: agentSessionState("state").notNull().default("pending"),
    externalUrl: text("external_url"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    lastActivityAt: ts("last_activity_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("agent_sessions_open_key").on(t.taskId, t.agentId).where(sql`${t.state} in ('pending', 'active', 'awaiting_input')`),
    index("agent_sessions_list_idx").on(t.workspaceId, t.createdAt, t.id),
    index("agent_sessions_agent_idx").on(t.agentId, t.createdAt, t.id),
    // A task's sessions: its delete's cascade and `filter[eq][taskId]` (the open-session key covers open ones only).
    index("agent_sessions_task_idx").on(t.taskId, t.createdAt, t.id),
  ],
);

/** What happened in an agent session (`act_…`), append-only: the agent's thoughts, actions, questions and answers, people's prompts. */
export const agentActivities = pgTable(
  "agent_activities",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    teamId: text("team_id").notNull(),
    sessionId: text("session_id")
      .notNull()
      .references(() => agentSessions.id, { onDelete: "cascade" }),
    taskId: text("task_id").notNull(),
    agentId: text("agent_id").notNull(),
    type: agentActivityType("type").notNull(),
    body: text("body").notNull(),
    action: jsonb("action").$type<{ name: string; parameter?: string; result?: string }>(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [index("agent_activities_session_idx").on(t.sessionId, t.createdAt, t.id)],
);

/**
 * Links on tasks (`lnk_…`: a URL and its title, never fetched). One per URL a task (the unique key makes a repeated POST
 * return the link it already has); the team is the task's, stored so its delete event keeps it in a cascade.
 */
export const taskLinks = pgTable(
  "task_links",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    teamId: text("team_id").notNull(),
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    title: text("title"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("task_links_url_key").on(t.taskId, t.url), index("task_links_task_idx").on(t.taskId, t.createdAt, t.id)],
);

export const labels = pgTable(
  "labels",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    name: text("name").notNull(),
    // The name in the one case folding of names (src/records/names.ts `foldName`), which the unique index and every
    // lookup by name compare: PostgreSQL's lower() depends on the database's locale, so it is computed in the Worker.
    nameKey: text("name_key").notNull(),
    color: text("color").notNull(),
    // Renaming, recolouring and deleting need workspace ADMIN/OWNER or this user (null: admins only).
    creatorId: text("creator_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("labels_workspace_name_key").on(t.workspaceId, t.nameKey),
    index("labels_list_idx").on(t.workspaceId, t.createdAt, t.id),
  ],
);

export const taskLabels = pgTable(
  "task_labels",
  {
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    labelId: text("label_id")
      .notNull()
      .references(() => labels.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.taskId, t.labelId] }), index("task_labels_label_idx").on(t.labelId)],
);

export const projectLabels = pgTable(
  "project_labels",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    labelId: text("label_id")
      .notNull()
      .references(() => labels.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.labelId] }), index("project_labels_label_idx").on(t.labelId)],
);

export const comments = pgTable(
  "comments",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    authorId: text("author_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    content: text("content").notNull(),
    taskId: text("task_id").references(() => tasks.id, { onDelete: "cascade" }),
    projectId: text("project_id").references(() => projects.id, { onDelete: "cascade" }),
    milestoneId: text("milestone_id").references(() => milestones.id, { onDelete: "cascade" }),
    teamId: recordTeam(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("comments_one_target", sql`num_nonnulls(${t.taskId}, ${t.projectId}, ${t.milestoneId}) = 1`),
    index("comments_task_idx").on(t.taskId, t.createdAt, t.id),
    index("comments_project_idx").on(t.projectId, t.createdAt, t.id),
    index("comments_milestone_idx").on(t.milestoneId, t.createdAt, t.id),
    index("comments_list_idx").on(t.workspaceId, t.createdAt, t.id),
  ],
);

/**
 * Files on tasks and on their comments (docs/api.md, "Attachments"): the bytes in R2 (the `FILES` binding) under
 * `object_key`, written before this row and removed after it through `file_deletions`. The team is the task's (a task
 * never changes team): the events and a team-bound credential read it from the row.
 */
export const attachments = pgTable(
  "attachments",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    teamId: text("team_id").notNull(),
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    commentId: text("comment_id").references(() => comments.id, { onDelete: "cascade" }),
    filename: text("filename").notNull(),
    contentType: text("content_type").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    sha256: text("sha256").notNull(),
    objectKey: text("object_key").notNull(),
    creatorId: text("creator_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [
    index("attachments_task_idx").on(t.taskId, t.createdAt, t.id),
    index("attachments_comment_idx").on(t.commentId),
    uniqueIndex("attachments_object_key").on(t.objectKey),
    // The workspace's stored total (its quota), summed from its rows.
    index("attachments_workspace_idx").on(t.workspaceId),
  ],
);

/**
 * Time logged on a task (docs/api.md, "Time tracking"). The team is the task's (a task never changes team): the events
 * and a team-bound credential read it from the row. The author is kept as null once the user is gone.
 */
export const worklogs = pgTable(
  "worklogs",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    teamId: text("team_id").notNull(),
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    startedAt: ts("started_at").notNull(),
    durationSeconds: integer("duration_seconds").notNull(),
    note: text("note"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("worklogs_duration_positive", sql`${t.durationSeconds} > 0`),
    // A task's worklogs (its list, its spent time), the workspace's by time (GET /worklogs, the summary) and by author.
    index("worklogs_task_idx").on(t.taskId, t.startedAt, t.id),
    index("worklogs_list_idx").on(t.workspaceId, t.createdAt, t.id),
    index("worklogs_started_idx").on(t.workspaceId, t.startedAt, t.id),
    index("worklogs_user_idx").on(t.workspaceId, t.userId, t.startedAt),
  ],
);

/**
 * The outbox of stored bytes to remove: a trigger adds a row in the transaction that deletes an attachment (itself, or
 * its comment or task by cascade); the queue consumer deletes the object, then the row. The cron sends again what is due.
 */
export const fileDeletions = pgTable(
  "file_deletions",
  {
    objectKey: text("object_key").primaryKey(),
    relayAfter: ts("relay_after").notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [index("file_deletions_relay_after_idx").on(t.relayAfter)],
);

export const invites = pgTable(
  "invites",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    email: text("email").notNull(),
    role: workspaceRole("role").notNull().default("MEMBER"),
    teamRole: teamRole("team_role").notNull().default("MEMBER"),
    teamIds: text("team_ids").array().notNull().default(sql`'{}'::text[]`),
    tokenHash: text("token_hash").notNull(),
    invitedById: text("invited_by_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: ts("expires_at").notNull(),
    redeemedAt: ts("redeemed_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("invites_token_hash_key").on(t.tokenHash), index("invites_list_idx").on(t.workspaceId, t.createdAt, t.id)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    // SHA-256 of the raw key; the raw key is never stored.
    keyHash: text("key_hash").notNull(),
    // What the key may do (docs/api.md, "Least privilege"): null is every scope, or every team.
    scopes: text("scopes").array(),
    teamIds: text("team_ids").array(),
    lastUsedAt: ts("last_used_at"),
    expiresAt: ts("expires_at"),
    createdAt: createdAt(),
  },
  (t) => [
    // A key lives only as long as its user's membership of the workspace: leaving deletes the keys, so a key
    // found by hash is enough to authenticate (no membership join on the hot path).
    foreignKey({
      name: "api_keys_membership_fk",
      columns: [t.workspaceId, t.userId],
      foreignColumns: [workspaceMembers.workspaceId, workspaceMembers.userId],
    }).onDelete("cascade"),
    uniqueIndex("api_keys_key_hash_key").on(t.keyHash),
    index("api_keys_list_idx").on(t.workspaceId, t.createdAt, t.id),
    index("api_keys_user_idx").on(t.userId),
  ],
);

export const fieldDefinitions = pgTable(
  "field_definitions",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    key: text("key").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    type: fieldType("type").notNull(),
    presentation: jsonb("presentation"),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    recordTypes: text("record_types").array().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("field_definitions_workspace_key_key").on(t.workspaceId, t.key),
    index("field_definitions_list_idx").on(t.workspaceId, t.createdAt, t.id),
  ],
);

/** One-time e-mail codes for sign-up and login; the token the client holds and the code are both hashed. */
export const authCodes = pgTable(
  "auth_codes",
  {
    id: text("id").primaryKey(),
    purpose: codePurpose("purpose").notNull(),
    email: text("email").notNull(),
    tokenHash: text("token_hash").notNull(),
    codeHash: text("code_hash").notNull(),
    attempts: integer("attempts").notNull().default(0),
    expiresAt: ts("expires_at").notNull(),
    consumedAt: ts("consumed_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("auth_codes_token_hash_key").on(t.tokenHash), index("auth_codes_email_idx").on(t.email)],
);

/** RFC 8628 device authorizations. */
export const deviceAuthorizations = pgTable(
  "device_authorizations",
  {
    id: text("id").primaryKey(),
    deviceCodeHash: text("device_code_hash").notNull(),
    userCode: text("user_code").notNull(),
    clientName: text("client_name"),
    status: deviceStatus("status").notNull().default("PENDING"),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").references(() => workspaces.id, { onDelete: "cascade" }),
    intervalSeconds: integer("interval_seconds").notNull().default(5),
    lastPolledAt: ts("last_polled_at"),
    // The scopes the device asked for (null: every scope); on approval, what the approver's credential allows of them.
    scopes: text("scopes").array(),
    teamIds: text("team_ids").array(),
    // Once consumed, the authorization is the device's login: its tokens name it (`sid`), the refresh token (hashed)
    // renews them, and revoking it ends them all at once.
    refreshHash: text("refresh_hash"),
    refreshExpiresAt: ts("refresh_expires_at"),
    revokedAt: ts("revoked_at"),
    expiresAt: ts("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("device_authorizations_device_code_key").on(t.deviceCodeHash),
    uniqueIndex("device_authorizations_user_code_key").on(t.userCode),
    uniqueIndex("device_authorizations_refresh_key").on(t.refreshHash),
  ],
);

/** OAuth clients registered by Dynamic Client Registration (RFC 7591); a Client ID Metadata Document's client is not stored. */
export const oauthClients = pgTable("oauth_clients", {
  // The client_id handed out.
  id: text("id").primaryKey(),
  clientName: text("client_name").notNull(),
  redirectUris: text("redirect_uris").array().notNull(),
  createdAt: createdAt(),
});

/**
 * An agent host's access to a person's workspace (docs/clients.md, OAuth): first an authorization code (hashed, with its
 * PKCE challenge), then, once exchanged, the grant its tokens name (`gid`); deleting it revokes them all at once. It
 * lives only as long as the membership, like an API key.
 */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    // A DCR client's id, or the URL of a Client ID Metadata Document.
    clientId: text("client_id").notNull(),
    clientName: text("client_name").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    scopes: text("scopes").array(),
    teamIds: text("team_ids").array(),
    // The code's hash stays, so that a code presented again is known (and revokes the grant); the challenge is null
    // once exchanged, which is what makes the grant live.
    codeHash: text("code_hash"),
    codeChallenge: text("code_challenge"),
    codeExpiresAt: ts("code_expires_at"),
    lastUsedAt: ts("last_used_at"),
    createdAt: createdAt(),
  },
  (t) => [
    foreignKey({
      name: "oauth_grants_membership_fk",
      columns: [t.workspaceId, t.userId],
      foreignColumns: [workspaceMembers.workspaceId, workspaceMembers.userId],
    }).onDelete("cascade"),
    uniqueIndex("oauth_grants_code_key").on(t.codeHash),
    index("oauth_grants_user_idx").on(t.userId, t.workspaceId, t.createdAt),
  ],
);

/** A grant's refresh tokens (hashed): each is used once; presenting a used one again revokes the grant (RFC 9700 §4.14). */
export const oauthRefreshTokens = pgTable(
  "oauth_refresh_tokens",
  {
    hash: text("hash").primaryKey(),
    grantId: text("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    usedAt: ts("used_at"),
    createdAt: createdAt(),
  },
  (t) => [index("oauth_refresh_tokens_grant_idx").on(t.grantId)],
);

/** Mail kept by the dev adapter (DEV_MAILBOX=true only); message_id makes delivery idempotent. */
export const devMailbox = pgTable(
  "dev_mailbox",
  {
    id: text("id").primaryKey(),
    messageId: text("message_id").notNull(),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("dev_mailbox_message_id_key").on(t.messageId), index("dev_mailbox_to_idx").on(t.to, t.createdAt)],
);

/** What the built-in dev receiver (POST /_dev/webhooks, DEV_WEBHOOKS=true only) got: headers and body as received. */
export const devWebhookRequests = pgTable(
  "dev_webhook_requests",
  {
    id: text("id").primaryKey(),
    headers: jsonb("headers").$type<Record<string, string>>().notNull(),
    body: text("body").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("dev_webhook_requests_created_idx").on(t.createdAt, t.id)],
);

/** Message ids already handed to a provider: a redelivered queue message is not sent twice. */
export const emailDeliveries = pgTable("email_deliveries", {
  messageId: text("message_id").primaryKey(),
  provider: text("provider").notNull(),
  deliveredAt: createdAt(),
});

/**
 * Emails waiting for delivery (the outbox): the write that causes one (a sign-up or login code, an invite) inserts it in
 * its own statement or transaction, so a committed write always has its email here. The relay (src/email/relay.ts)
 * sends it to the email queue after the commit and again, later and less often, while it is not delivered; the
 * consumer deletes it once delivered. The row id is the queue message id, by which the consumer delivers once.
 * The message is sealed (AES-GCM under a key derived from CURSOR_SECRET): it carries a code or an invite token.
 */
export const emailOutbox = pgTable(
  "email_outbox",
  {
    id: text("id").primaryKey(),
    sealedMessage: text("sealed_message"),
    /**
     * Or the notification it tells of (contract §22), written by the trigger that writes the notification (no secret to
     * seal): the relay renders it from the notification. One mail per notification.
     */
    notificationId: text("notification_id").references((): AnyPgColumn => notifications.id, { onDelete: "cascade" }),
    // When the code or invite it carries expires: after that the mail is useless and the relay drops it.
    expiresAt: ts("expires_at").notNull(),
    // Sends to the queue so far, and when the relay sends it again if it is still here.
    relays: integer("relays").notNull().default(0),
    relayAfter: ts("relay_after").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("email_outbox_relay_after_idx").on(t.relayAfter),
    uniqueIndex("email_outbox_notification_key").on(t.notificationId),
    check("email_outbox_one_message", sql`num_nonnulls(${t.sealedMessage}, ${t.notificationId}) = 1`),
  ],
);

/**
 * Answers of POSTs sent with an Idempotency-Key (contract §1), kept 24 h per caller and key: a retry with the same
 * request gets the stored answer. The body is sealed (AES-GCM under a key derived from CURSOR_SECRET): answers such
 * as POST /api-keys carry raw secrets, which are never stored in plain text.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    // The caller's user, or `ip:<address>` on the public routes.
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    // SHA-256 of method, path and body: the same key with another request is refused.
    requestHash: text("request_hash").notNull(),
    status: integer("status").notNull(),
    location: text("location"),
    sealedBody: text("sealed_body").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index("idempotency_keys_created_idx").on(t.createdAt)],
);

/**
 * Requests given up on after a failure whose outcome was unknown (src/db/outcome.ts): a write of such a request that
 * reaches the database later writes nothing (`pm_fence`, in the write's own statement or BEGIN), so once its fence is
 * set, what the request committed is final and can be looked up. Kept a day.
 */
export const writeFences = pgTable(
  "write_fences",
  {
    // The request's attempt (a server-made UUID, not the caller's x-request-id, which a retry may repeat).
    attempt: text("attempt").primaryKey(),
    createdAt: createdAt(),
  },
  (t) => [index("write_fences_created_idx").on(t.createdAt)],
);

/**
 * The change feed (docs/events.md): one row per change of a tracked record, written by the database's own triggers
 * (migration 0011) in the transaction of the change, so no write path can commit without its event. `position` is the
 * writing transaction's id shifted left 20 bits plus the event's rank in it: a reader takes only positions below the
 * oldest transaction still running (`pg_snapshot_xmin`), so a stream resumed by position never skips a late commit.
 * Images are the row as stored (snake_case, secrets removed); the API shape is rendered when read.
 */
export const events = pgTable(
  "events",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    xact: bigint("xact", { mode: "number" }).notNull(),
    position: bigint("position", { mode: "number" }).notNull(),
    type: text("type").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    reference: text("reference"),
    teamId: text("team_id"),
    // The user an API key belongs to, for api_key events: its owner sees them.
    ownerId: text("owner_id"),
    actorId: text("actor_id"),
    via: text("via"),
    requestId: text("request_id"),
    oldImage: jsonb("old_image").$type<Record<string, unknown>>(),
    newImage: jsonb("new_image").$type<Record<string, unknown>>(),
    labelsAfter: text("labels_after").array(),
    labelsAdded: text("labels_added").array(),
    labelsRemoved: text("labels_removed").array(),
    // A task relation's event: both tasks (it is in both histories) and the other task's team (who may see it).
    taskIds: text("task_ids").array(),
    otherTeamId: text("other_team_id"),
    createdAt: createdAt(),
  },
  (t) => [
    // One event per record per transaction: a second change in the same transaction folds into the first.
    uniqueIndex("events_xact_resource_key").on(t.xact, t.resourceType, t.resourceId),
    // The stream's order; positions are unique by construction (a transaction's id and a rank in it).
    index("events_stream_idx").on(t.workspaceId, t.position),
    index("events_resource_idx").on(t.resourceId, t.position),
    index("events_task_ids_idx").using("gin", t.taskIds),
    // A cycle's history (docs/api.md, "Cycles"): the tasks an event put in the cycle.
    index("events_task_cycle_idx")
      .on(sql`(${t.newImage}->>'cycle_id')`)
      .where(sql`${t.resourceType} = 'task' and ${t.newImage}->>'cycle_id' is not null`),
    // GET /events?resourceId=ENG-42 (a reference, any case): the events that carried it, found without walking the
    // stream (the planner uses this expression's statistics only when the index is not partial).
    index("events_reference_idx").on(t.workspaceId, sql`upper(${t.reference})`),
    // Retention goes by id: ids are time-ordered (UUIDv7), so the primary key finds the old ones.
  ],
);

/**
 * Who follows a task (contract §22): a row per person, made when they create, are assigned or delegated, comment, are
 * mentioned or subscribe; `subscribed` false is an unsubscribe, which sticks until they subscribe or are mentioned again.
 */
export const taskSubscriptions = pgTable(
  "task_subscriptions",
  {
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    workspaceId: wsRef(),
    subscribed: boolean("subscribed").notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.taskId, t.userId] }), index("task_subscriptions_list_idx").on(t.taskId, t.createdAt, t.userId)],
);

/**
 * A person's inbox (`ntf_…`, contract §22): one row per recipient and event, written by the triggers of the write that
 * caused it (pm_notify), never an event itself. The comment it is about, when there is one.
 */
export const notifications = pgTable(
  "notifications",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    type: notificationType("type").notNull(),
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    teamId: text("team_id").notNull(),
    commentId: text("comment_id").references(() => comments.id, { onDelete: "set null" }),
    actorId: text("actor_id").references(() => users.id, { onDelete: "set null" }),
    eventId: text("event_id"),
    readAt: ts("read_at"),
    archivedAt: ts("archived_at"),
    snoozedUntil: ts("snoozed_until"),
    createdAt: createdAt(),
  },
  (t) => [
    // The inbox, newest first (ids are time-ordered), and its unread count.
    index("notifications_inbox_idx").on(t.userId, t.id),
    index("notifications_unread_idx").on(t.userId).where(sql`${t.readAt} is null and ${t.archivedAt} is null`),
    index("notifications_task_idx").on(t.taskId),
    // A mention notifies once per person and text (a task's description: no comment).
    index("notifications_mention_idx").on(t.taskId, t.userId, t.commentId).where(sql`${t.type} = 'mentioned'`),
  ],
);

/** Webhooks (docs/webhooks.md): where a workspace's events are POSTed, signed per the Standard Webhooks specification. */
export const webhooks = pgTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    url: text("url").notNull(),
    // Event types or wildcards (`task.*`, `*`).
    events: text("events").array().notNull(),
    description: text("description").notNull().default(""),
    // Only events of these teams; null: every event.
    teamIds: text("team_ids").array(),
    // Only events whose record passes this filter (the list filter syntax as JSON, names resolved to ids); null: every event.
    filter: jsonb("filter").$type<Record<string, Record<string, unknown>>>(),
    // Only events of these agents' sessions (and their activities); null: every event.
    agentIds: text("agent_ids").array(),
    enabled: boolean("enabled").notNull().default(true),
    // Signing secrets, sealed (AES-GCM); the previous one keeps signing until previous_secret_expires_at.
    sealedSecret: text("sealed_secret").notNull(),
    sealedPreviousSecret: text("sealed_previous_secret"),
    previousSecretExpiresAt: ts("previous_secret_expires_at"),
    creatorId: text("creator_id").references(() => users.id, { onDelete: "set null" }),
    // Since when every delivery has failed (null: the last one succeeded); 3 days of it disables the webhook.
    failingSince: ts("failing_since"),
    disabledReason: text("disabled_reason"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("webhooks_list_idx").on(t.workspaceId, t.createdAt, t.id)],
);

/** One event (or ping) for one webhook: created with the event, relayed to the webhook queue, kept 30 days. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull(),
    // The body of a delivery that is not a stored event (a ping).
    payload: jsonb("payload"),
    status: text("status").$type<"pending" | "succeeded" | "failed">().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    responseStatus: integer("response_status"),
    durationMs: integer("duration_ms"),
    lastError: text("last_error"),
    nextAttemptAt: ts("next_attempt_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("webhook_deliveries_list_idx").on(t.webhookId, t.createdAt, t.id),
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index("webhook_deliveries_created_idx").on(t.createdAt),
  ],
);

/**
 * An import sent in parts (docs/api.md, export and import): created by POST /imports, filled by PUT
 * /imports/{id}/parts/{n}, applied in one transaction by POST /imports/{id}/commit. Only its creator sees it; it goes
 * 24 h after it was made (the Cron Trigger), its staged records as soon as it is committed.
 */
export const imports = pgTable(
  "imports",
  {
    id: text("id").primaryKey(),
    workspaceId: wsRef(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    // The team the records go into; null: a new workspace.
    teamId: text("team_id").references(() => teams.id, { onDelete: "cascade" }),
    update: boolean("update").notNull().default(false),
    status: text("status", { enum: ["open", "committed"] })
      .notNull()
      .default("open"),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
    committedAt: ts("committed_at"),
  },
  (t) => [index("imports_user_idx").on(t.userId, t.createdAt, t.id), index("imports_expires_idx").on(t.expiresAt)],
);

/** One part of an import: an export document holding some of its records (type and root as every other part's). */
export const importParts = pgTable(
  "import_parts",
  {
    importId: text("import_id")
      .notNull()
      .references(() => imports.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    type: text("type").notNull(),
    root: text("root").notNull(),
    bytes: integer("bytes").notNull(),
    // Records per collection, e.g. {"tasks": 5000, "comments": 812}.
    records: jsonb("records").$type<Record<string, number>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.importId, t.number] })],
);

/**
 * The records of a part, one row each, as the part's validation gave them: the commit reads them a page at a time in
 * document order (part, position), so a Worker never holds the whole import. An id is unique in its import (users apart:
 * their ids are another namespace), which the unique index checks as parts arrive.
 */
export const importRecords = pgTable(
  "import_records",
  {
    importId: text("import_id").notNull(),
    part: integer("part").notNull(),
    collection: text("collection").notNull(),
    position: integer("position").notNull(),
    recordId: text("record_id").notNull(),
    record: jsonb("record").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.importId, t.collection, t.part, t.position] }),
    foreignKey({ columns: [t.importId, t.part], foreignColumns: [importParts.importId, importParts.number] }).onDelete("cascade"),
    uniqueIndex("import_records_id_key").on(t.importId, sql`(${t.collection} = 'users')`, t.recordId),
  ],
);

export const schema = {
  workspaces,
  users,
  workspaceMembers,
  teams,
  teamFormerPrefixes,
  teamMembers,
  projects,
  milestones,
  workflowStates,
  tasks,
  labels,
  taskLabels,
  projectLabels,
  comments,
  attachments,
  fileDeletions,
  invites,
  apiKeys,
  fieldDefinitions,
  authCodes,
  deviceAuthorizations,
  devMailbox,
  devWebhookRequests,
  emailDeliveries,
  emailOutbox,
  idempotencyKeys,
  taskSubscriptions,
  notifications,
  events,
  webhooks,
  webhookDeliveries,
  imports,
  importParts,
  importRecords,
};
