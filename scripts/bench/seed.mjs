// Bulk seeding for the benchmark: one workspace with a team, members, labels, tasks, projects, comments.
// Rows go in with multi-row INSERT … SELECT FROM unnest(…) so 100,000 tasks take seconds, not minutes.
import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { typeid } from "typeid-js";

const id = (prefix) => typeid(prefix).toString();
const CHUNK = 5000;
const STATUSES = ["BACKLOG", "TODO", "IN_PROGRESS", "IN_REVIEW", "DONE", "CANCELED"];
const PRIORITIES = ["NONE", "LOW", "MEDIUM", "HIGH", "URGENT"];

async function insertColumns(client, table, columns, types, rows) {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    const arrays = columns.map((_, c) => chunk.map((r) => r[c]));
    const params = types.map((t, c) => `$${c + 1}::${t}[]`).join(", ");
    await client.query(`insert into ${table} (${columns.join(", ")}) select * from unnest(${params})`, arrays);
  }
}

/**
 * @returns {Promise<{ apiKey: string, workspaceId: string, teamId: string, prefix: string, taskIds: string[], projectIds: string[],
 *   userIds: string[], labelIds: string[], membershipIds: string[], milestoneIds: string[], commentIds: string[] }>}
 * `commentIds` are the comments of the key's user (the OWNER), who may edit them.
 */
// Varied words in task titles and descriptions, so GET /search has matches of both weights to rank.
const SEARCH_WORDS = [
  "login",
  "payment",
  "cache",
  "invoice",
  "export",
  "billing",
  "timeout",
  "webhook",
  "retry",
  "latency",
  "onboarding",
  "dashboard",
  "migration",
];

export async function seedWorkspace(
  databaseUrl,
  { tasks = 10_000, projects = 200, comments = 2_000, labels = 12, members = 8, prefix = "BEN" } = {},
) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("begin");
    const workspaceId = id("ws");
    const tag = randomBytes(4).toString("hex");
    await client.query("insert into workspaces (id, name, slug) values ($1, $2, $3)", [workspaceId, `Bench ${tag}`, `bench-${tag}`]);
    const userIds = Array.from({ length: members }, () => id("user"));
    await insertColumns(
      client,
      "users",
      ["id", "name", "email"],
      ["text", "text", "text"],
      userIds.map((u, i) => [u, `Bench User ${i}`, `bench-${tag}-${i}@example.com`]),
    );
    await insertColumns(
      client,
      "workspace_members",
      ["workspace_id", "user_id", "role"],
      ["text", "text", "workspace_role"],
      userIds.map((u, i) => [workspaceId, u, i === 0 ? "OWNER" : "MEMBER"]),
    );
    const apiKey = `pmk_${randomBytes(32).toString("base64url")}`;
    await client.query("insert into api_keys (id, workspace_id, user_id, name, prefix, key_hash) values ($1, $2, $3, 'bench', $4, $5)", [
      id("apik"),
      workspaceId,
      userIds[0],
      apiKey.slice(0, 10),
      createHash("sha256").update(apiKey).digest("hex"),
    ]);
    const teamId = id("team");
    await client.query(
      "insert into teams (id, workspace_id, name, prefix, task_counter, project_counter) values ($1, $2, 'Bench team', $3, $4, $5)",
      [teamId, workspaceId, prefix, tasks, projects],
    );
    const membershipIds = userIds.map(() => id("tmbr"));
    await insertColumns(
      client,
      "team_members",
      ["id", "workspace_id", "team_id", "user_id", "role"],
      ["text", "text", "text", "text", "team_role"],
      userIds.map((u, i) => [membershipIds[i], workspaceId, teamId, u, i === 0 ? "OWNER" : "MEMBER"]),
    );
    const labelIds = Array.from({ length: labels }, () => id("label"));
    await insertColumns(
      client,
      "labels",
      ["id", "workspace_id", "name", "color"],
      ["text", "text", "text", "text"],
      labelIds.map((l, i) => [l, workspaceId, `label-${i}`, `#${(0x100000 + i * 40000).toString(16).slice(0, 6).toUpperCase()}`]),
    );
    const projectIds = Array.from({ length: projects }, () => id("proj"));
    const base = Date.now() - 3600_000;
    await insertColumns(
      client,
      "projects",
      ["id", "workspace_id", "team_id", "number", "name", "status", "created_at"],
      ["text", "text", "text", "int", "text", "project_status", "timestamptz"],
      projectIds.map((p, i) => [p, workspaceId, teamId, i + 1, `Project ${i + 1}`, i % 2 ? "ACTIVE" : "PLANNING", new Date(base + i * 10)]),
    );
    const milestoneIds = projectIds.slice(0, 10).map(() => id("mile"));
    await insertColumns(
      client,
      "milestones",
      ["id", "workspace_id", "project_id", "name"],
      ["text", "text", "text", "text"],
      milestoneIds.map((m, i) => [m, workspaceId, projectIds[i], `Milestone ${i + 1}`]),
    );
    const taskIds = Array.from({ length: tasks }, () => id("task"));
    await insertColumns(
      client,
      "tasks",
      [
        "id",
        "workspace_id",
        "team_id",
        "number",
        "title",
        "description",
        "status",
        "priority",
        "due_date",
        "project_id",
        "assignee_id",
        "created_at",
      ],
      ["text", "text", "text", "int", "text", "text", "task_status", "task_priority", "date", "text", "text", "timestamptz"],
      taskIds.map((t, i) => [
        t,
        workspaceId,
        teamId,
        i + 1,
        `Task ${i + 1} ${i % 7 === 0 ? "deploy pipeline" : "write docs"} ${SEARCH_WORDS[i % SEARCH_WORDS.length]}`,
        `Description of task ${i + 1}: the ${SEARCH_WORDS[(i * 7 + 3) % SEARCH_WORDS.length]} step fails after the ${SEARCH_WORDS[(i * 5 + 1) % SEARCH_WORDS.length]} change`,
        STATUSES[i % STATUSES.length],
        PRIORITIES[i % PRIORITIES.length],
        i % 3 === 0 ? null : new Date(base + i * 86_400_00).toISOString().slice(0, 10),
        i % 4 === 0 ? projectIds[i % projectIds.length] : null,
        userIds[i % userIds.length],
        new Date(base + i),
      ]),
    );
    await insertColumns(
      client,
      "task_labels",
      ["task_id", "label_id"],
      ["text", "text"],
      taskIds.flatMap((t, i) => [
        [t, labelIds[i % labels]],
        [t, labelIds[(i + 5) % labels]],
      ]),
    );
    const allCommentIds = Array.from({ length: comments }, () => id("cmnt"));
    await insertColumns(
      client,
      "comments",
      ["id", "workspace_id", "author_id", "content", "task_id"],
      ["text", "text", "text", "text", "text"],
      allCommentIds.map((c, i) => [c, workspaceId, userIds[i % userIds.length], `Comment ${i}`, taskIds[i % taskIds.length]]),
    );
    const commentIds = allCommentIds.filter((_, i) => i % userIds.length === 0);
    await client.query("commit");
    await client.query("analyze");
    return { apiKey, workspaceId, teamId, prefix, taskIds, projectIds, userIds, labelIds, membershipIds, milestoneIds, commentIds };
  } catch (err) {
    await client.query("rollback").catch(() => {});
    throw err;
  } finally {
    await client.end();
  }
}
