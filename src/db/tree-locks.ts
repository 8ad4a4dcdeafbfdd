import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "./client";

/**
 * Locks that serialise re-parenting for the rest of the transaction. A cycle check reads the tree as its snapshot shows
 * it: two concurrent moves (A under B, B under A) would each pass on their own. Whoever moves a node takes the lock
 * first; the second waits, and its check (a later statement, a newer snapshot) sees the first move.
 */
const lockSql = (name: SQL) => sql`pg_advisory_xact_lock(hashtextextended(${name}, 0))`;

/** Teams nest within a workspace. */
export const lockTeamTree = (tx: Executor, workspaceId: string) => tx.execute(sql`select ${lockSql(sql`${`team-tree:${workspaceId}`}`)}`);

/** Subtasks nest within a team; as an expression, so that a statement that reads the team can take it too. */
export const subtaskTreeLock = (teamId: SQL) => lockSql(sql`'task-tree:' || ${teamId}`);
export const lockSubtaskTree = (tx: Executor, teamId: string) => tx.execute(sql`select ${subtaskTreeLock(sql`${teamId}`)}`);

/**
 * `blocks` edges chain tasks of any team of a workspace: a new edge's cycle check holds this until its transaction ends.
 * As an expression of the workspace (its id, or SQL that reads it), for a statement sent ahead of the check.
 */
export const blocksGraphLock = (workspace: string | SQL) => lockSql(sql`'blocks:' || ${workspace}`);
export const lockBlocksGraph = (tx: Executor, workspaceId: string) => tx.execute(sql`select ${blocksGraphLock(workspaceId)}`);
