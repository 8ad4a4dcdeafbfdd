import { and, eq, sql } from "drizzle-orm";
import { teams, users, workspaceMembers, workspaces } from "../../../drizzle/schema";
import { type Caller, unauthorizedFor } from "../../auth/caller";
import { credentialScopes, credentialTeams } from "../../auth/credential";
import type { WorkspaceRole } from "../../auth/principal";
import type { Readable, Scope } from "../../core/scopes";
import { readsJson, teamsValue } from "../../db/scope";
import { type UserDto, userRecord } from "../users/record";
import { type WorkspaceDto, workspaceRecord } from "../workspaces/record";

export interface Me {
  user: UserDto;
  workspace: WorkspaceDto;
  role: WorkspaceRole;
  scopes: Scope[];
  reads: Readable[];
  teamIds: string[] | null;
  teams: { id: string; prefix: string; name: string }[] | null;
}

/**
 * GET /me: the caller, their current workspace and their role in it, in one statement that authenticates itself. The
 * membership it reads is what makes the credential live, so finding none is 401.
 */
export function getMe(caller: Caller): Promise<Me> {
  return caller.read(async ({ workspace, user }) => {
    const teamIds = teamsValue(credentialTeams(caller.credential));
    const [row] = await caller.db
      .select({
        user: userRecord.json(),
        workspace: workspaceRecord.json(),
        role: sql<WorkspaceRole>`${workspaceMembers.role}`,
        // What this credential may do (docs/api.md, "Least privilege").
        scopes: sql<Scope[]>`${credentialScopes(caller.credential)}`,
        reads: readsJson(credentialScopes(caller.credential)),
        teamIds,
        // The same teams as people name them (a credential may not read teams: GET /teams would refuse it).
        teams: sql<Me["teams"]>`case when ${teamIds} is null then null else (
          select coalesce(json_agg(json_build_object('id', ${teams.id}, 'prefix', ${teams.prefix}, 'name', ${teams.name}) order by ${teams.prefix}), '[]')
          from ${teams} where ${teams.workspaceId} = ${workspaceMembers.workspaceId} and ${teams.id} = any((${teamIds})::text[])) end`,
      })
      .from(
        sql`${workspaceMembers} join ${users} on ${users.id} = ${workspaceMembers.userId} join ${workspaces} on ${workspaces.id} = ${workspaceMembers.workspaceId}`,
      )
      .where(and(eq(workspaceMembers.workspaceId, workspace), eq(workspaceMembers.userId, user)));
    if (!row) throw unauthorizedFor(caller.credential);
    return row;
  });
}
