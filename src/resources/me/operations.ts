import { and, eq, sql } from "drizzle-orm";
import { users, workspaceMembers, workspaces } from "../../../drizzle/schema";
import { type Caller, unauthorizedFor } from "../../auth/caller";
import { credentialScopes, credentialTeams } from "../../auth/credential";
import type { WorkspaceRole } from "../../auth/principal";
import type { Readable, Scope } from "../../core/scopes";
import { readsJson, teamsValue } from "../../db/scope";
import { type UserDto, userRecord } from "../../records/users";
import { type WorkspaceDto, workspaceRecord } from "../../records/workspaces";

export interface Me {
  user: UserDto;
  workspace: WorkspaceDto;
  role: WorkspaceRole;
  scopes: Scope[];
  reads: Readable[];
  teamIds: string[] | null;
}

/**
 * GET /me: the caller, their current workspace and their role in it, in one statement that authenticates itself. The
 * membership it reads is what makes the credential live, so finding none is 401.
 */
export function getMe(caller: Caller): Promise<Me> {
  return caller.read(async ({ workspace, user }) => {
    const [row] = await caller.db
      .select({
        user: userRecord.json(),
        workspace: workspaceRecord.json(),
        role: sql<WorkspaceRole>`${workspaceMembers.role}`,
        // What this credential may do (docs/api.md, "Least privilege").
        scopes: sql<Scope[]>`${credentialScopes(caller.credential)}`,
        reads: readsJson(credentialScopes(caller.credential)),
        teamIds: teamsValue(credentialTeams(caller.credential)),
      })
      .from(
        sql`${workspaceMembers} join ${users} on ${users.id} = ${workspaceMembers.userId} join ${workspaces} on ${workspaces.id} = ${workspaceMembers.workspaceId}`,
      )
      .where(and(eq(workspaceMembers.workspaceId, workspace), eq(workspaceMembers.userId, user)));
    if (!row) throw unauthorizedFor(caller.credential);
    return row;
  });
}
