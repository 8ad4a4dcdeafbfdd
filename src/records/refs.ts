import { and, eq, type SQL } from "drizzle-orm";
import { projects, tasks, teams } from "../../drizzle/schema";

const TASK_REF = /^([A-Za-z][A-Za-z0-9]{1,9})-(\d{1,9})$/;
const PROJECT_REF = /^([A-Za-z][A-Za-z0-9]{1,9})-P(\d{1,9})$/i;

export function parseTaskRef(value: string): { prefix: string; number: number } | null {
  const m = TASK_REF.exec(value);
  return m ? { prefix: m[1].toUpperCase(), number: Number(m[2]) } : null;
}

export function parseProjectRef(value: string): { prefix: string; number: number } | null {
  const m = PROJECT_REF.exec(value);
  return m ? { prefix: m[1].toUpperCase(), number: Number(m[2]) } : null;
}

/**
 * Matches a task by id or reference (`ENG-12`, any case). The query must join `teams` on the task's team;
 * the caller adds the workspace condition.
 */
export function taskMatch(idOrRef: string): SQL {
  const ref = parseTaskRef(idOrRef);
  return ref ? and(eq(teams.prefix, ref.prefix), eq(tasks.number, ref.number))! : eq(tasks.id, idOrRef);
}

/** Matches a project by id or reference (`ENG-P3`); the query must join `teams` on the project's team. */
export function projectMatch(idOrRef: string): SQL {
  const ref = parseProjectRef(idOrRef);
  return ref ? and(eq(teams.prefix, ref.prefix), eq(projects.number, ref.number))! : eq(projects.id, idOrRef);
}
