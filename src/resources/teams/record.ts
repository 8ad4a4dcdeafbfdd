// The Team record: its one field map (answer, schema, `fields` shape, list spec, bodies, export fields), and a team as
// other records embed it (`team: {id, name, prefix}`).
import { z } from "@hono/zod-openapi";
import { and, eq, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { teams } from "../../../drizzle/schema";
import { notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import { eventsWarmed, renameLockShared } from "../../db/event-context";
import { NameOf, named, pathNames } from "../../records/names";
import { defineRecord, exportedTimestamps, f } from "../../store/field-map";
import type { FieldSelection } from "../../store/list";
import { BodyId, LongText } from "../../store/schemas";
import { membersJson, TeamMemberItem, teamMemberItemRecord } from "../team-members/record";

export const TeamSummary = z.object({ id: z.string(), name: z.string(), prefix: z.string() }).openapi("TeamSummary");

/**
 * The CTE `counter` of a create numbered by its team (a task, project or cycle): the team's counter moved, read back with
 * the team's id and workspace. It holds the team's rename lock shared from before the counter row (a rename that took
 * its transaction id first would otherwise name the new record ahead of its creation in the stream, docs/sync.md), and
 * readies the event triggers before the row lock the team's other creates wait on (eventsWarmed).
 */
export const teamCounterMoved = (counter: "task_counter" | "project_counter" | "cycle_counter", allowed: SQL): SQL =>
  sql`counter as (update ${teams} set ${sql.raw(counter)} = ${sql.raw(counter)} + 1 where ${teams.id} = ${allowed}
    and ${renameLockShared(teams.id)} and ${eventsWarmed} returning id, workspace_id, ${sql.raw(counter)})`;

/** `{id, name, prefix}` of the joined team, built in SQL. */
export const teamSummaryJson = (t: typeof teams): SQL => sql`json_build_object('id', ${t.id}, 'name', ${t.name}, 'prefix', ${t.prefix})`;

export const TeamPrefix = z
  .string()
  .max(10, "Must be 2 to 10 upper-case letters or digits, starting with a letter")
  .regex(/^[A-Z][A-Z0-9]{1,9}$/, "Must be 2 to 10 upper-case letters or digits, starting with a letter")
  .openapi({ example: "ENG" });

const parent = alias(teams, "parent");

export const teamRecord = defineRecord({
  name: "Team",
  resource: "teams",
  id: teams.id,
  workspace: teams.workspaceId,
  team: teams.id,
  ...pathNames("team", teams.id),
  // The parent is read through the same name as the team, so that a write can put the teams as it leaves them there.
  from: sql`${teams} left join ${teams} as ${sql.identifier("parent")} on ${parent.id} = ${teams.parentId} and ${parent.workspaceId} = ${teams.workspaceId}`,
  fields: {
    id: f.id(teams.id, { names: named("team"), exported: BodyId }),
    name: f.text(teams.name, { input: { schema: z.string().trim().min(1).max(100), create: "required" }, exported: true }),
    prefix: f.text(teams.prefix, { input: { schema: TeamPrefix, create: "required" }, exported: true }),
    description: f.text(teams.description, { input: { schema: LongText }, exported: true }),
    parentId: f.id(teams.parentId, {
      names: named("team"),
      nullable: true,
      input: { schema: NameOf("team", "a team of the workspace; null for a top-level team").nullable() },
      exported: true,
    }),
    parent: f.json(
      sql`case when ${parent.id} is null then null else json_build_object('id', ${parent.id}, 'name', ${parent.name}) end`,
      z.object({ id: z.string(), name: z.string() }).nullable(),
      { shape: { id: true, name: true } },
    ),
    members: f.json(membersJson(teams.id), z.array(TeamMemberItem), { lazy: true, shape: teamMemberItemRecord.shape }),
    ...exportedTimestamps(teams),
  },
});

export const Team = teamRecord.schema;
export type TeamDto = z.infer<typeof Team>;
export const TeamSelection = teamRecord.selection;

export const TeamCreate = z.object(teamRecord.createShape()).strict().openapi("TeamCreate");
export const TeamUpdate = z.object(teamRecord.inputShape()).partial().strict().openapi("TeamUpdate", {
  description: "Partial; `parentId: null` makes the team top-level. A parent that is the team itself or one of its sub-teams is 422.",
});

export interface TeamUpdateInput {
  name?: string;
  prefix?: string;
  description?: string;
  parentId?: string | null;
}
export type TeamCreateInput = TeamUpdateInput & { name: string; prefix: string } & Record<string, unknown>;

/** The team `id` of the workspace as the Team answer (`fields` narrows what is built); NOT_FOUND otherwise. */
export async function getTeam(db: Executor, workspace: WorkspaceScope, id: string, fields: FieldSelection | null = null): Promise<TeamDto> {
  const [row] = await db
    .select({ team: teamRecord.json(fields) })
    .from(teamRecord.from)
    .where(and(eq(teams.workspaceId, workspace), eq(teams.id, id)));
  if (!row) throw notFound("Team");
  return row.team;
}
