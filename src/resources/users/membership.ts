import { and, eq } from "drizzle-orm";
import { workspaceMembers } from "../../../drizzle/schema";
import { notFound } from "../../core/errors";
import type { Executor } from "../../db/client";

/** A user id from a request body must name a member of the caller's workspace; anything else is NOT_FOUND. */
export async function assertWorkspaceMember(db: Executor, workspaceId: string, userId: string, what = "User"): Promise<void> {
  const [row] = await db
    .select({ userId: workspaceMembers.userId })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .limit(1);
  if (!row) throw notFound(what);
}
