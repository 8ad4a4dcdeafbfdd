// Which events a caller may see (docs/events.md): those of its workspace within its teams; invite, API-key and webhook
// events only for workspace ADMIN/OWNER, and a key's own events for its owner.
import { and, eq, isNull, or, type SQL, sql } from "drizzle-orm";
import { events } from "../../drizzle/schema";
import { inTeams } from "../db/scope";
import { PRIVILEGED_TYPES } from "../records/event-types";
import type { Actor } from "../store/statement-caller";
import { workspaceAdminSql } from "./roles";

/**
 * The events of the caller's workspace it may see: within its teams (an event of no team is workspace-wide; one of a
 * record between two teams' tasks, when both teams are).
 */
export const eventsVisibleTo = (actor: Actor): SQL =>
  and(
    eq(events.workspaceId, actor.workspace),
    actor.teams === null ? undefined : or(isNull(events.teamId), inTeams(actor.teams, events.teamId)),
    actor.teams === null ? undefined : or(isNull(events.otherTeamId), inTeams(actor.teams, events.otherTeamId)),
    or(
      sql`${events.resourceType} not in (${sql.join(
        PRIVILEGED_TYPES.map((t) => sql`${t}`),
        sql`, `,
      )})`,
      workspaceAdminSql(actor.role),
      and(eq(events.resourceType, "api_key"), eq(events.ownerId, actor.user)),
    ),
  )!;
