import { and, eq, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { comments, milestones, projects, tasks, teams } from "../../../drizzle/schema";
import { notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import { projectMatch, taskMatch } from "../../records/refs";

/** What a comment can be attached to. */
export type TargetKind = "task" | "project" | "milestone";
export interface Target {
  kind: TargetKind;
  /** Id, or for tasks and projects a reference (`ENG-12`, `ENG-P3`). */
  idOrRef: string;
}

export const TARGET_COLUMN = { task: comments.taskId, project: comments.projectId, milestone: comments.milestoneId } as const;
export const TARGET_FIELD = { task: "taskId", project: "projectId", milestone: "milestoneId" } as const;
export const TARGET_NAME = { task: "Task", project: "Project", milestone: "Milestone" } as const;

export const targetNotFound = (kind: TargetKind) => notFound(TARGET_NAME[kind]);

/**
 * The same named columns for every kind, so the CTE reads alike whatever the target. Drizzle refers to aliased
 * CTE columns unqualified, so the names must not clash with the columns of the tables joined to it.
 */
const selection = (id: AnyPgColumn, teamId: AnyPgColumn) => ({
  id: sql<string>`${id}`.as("target_id"),
  teamId: sql<string>`${teamId}`.as("target_team_id"),
});

/**
 * `{id, teamId}` of the target in the workspace (nothing when it is missing or foreign), to be used as a CTE
 * so callers resolve it in the same statement that reads or writes. `lock` keeps the row from being deleted
 * until the transaction ends (FOR KEY SHARE), so a comment insert never races its target's delete.
 */
export function targetSelect(db: Executor, workspaceId: WorkspaceScope, { kind, idOrRef }: Target, lock = false) {
  if (kind === "task") {
    const q = db
      .select(selection(tasks.id, tasks.teamId))
      .from(tasks)
      .innerJoin(teams, eq(teams.id, tasks.teamId))
      .where(and(eq(tasks.workspaceId, workspaceId), taskMatch(idOrRef)))
      .$dynamic();
    return lock ? q.for("key share", { of: tasks }) : q;
  }
  if (kind === "project") {
    const q = db
      .select(selection(projects.id, projects.teamId))
      .from(projects)
      .innerJoin(teams, eq(teams.id, projects.teamId))
      .where(and(eq(projects.workspaceId, workspaceId), projectMatch(idOrRef)))
      .$dynamic();
    return lock ? q.for("key share", { of: projects }) : q;
  }
  const q = db
    .select(selection(milestones.id, projects.teamId))
    .from(milestones)
    .innerJoin(projects, eq(projects.id, milestones.projectId))
    .where(and(eq(milestones.workspaceId, workspaceId), eq(milestones.id, idOrRef)))
    .$dynamic();
  return lock ? q.for("key share", { of: milestones }) : q;
}
