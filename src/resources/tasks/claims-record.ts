// A task's claim (docs/agents.md, "Claims"): who holds the task until when, so that workers sharing a queue never take
// the same task. Stored on the task's row; a claim past its expiry holds nothing, wherever it is read (no job clears it).
import { z } from "@hono/zod-openapi";
import { type SQL, sql } from "drizzle-orm";
import { tasks } from "../../../drizzle/schema";
import { iso } from "../../core/dates";
import { isoTimestamp } from "../../store/field-map";

/** Lease bounds in seconds (a claim not renewed in time frees the task by itself). */
export const LEASE = { min: 30, max: 3600, default: 900 } as const;
export const LeaseSeconds = z
  .number()
  .int()
  .min(LEASE.min)
  .max(LEASE.max)
  .default(LEASE.default)
  .openapi({ description: `How long the claim holds the task, in seconds (${LEASE.min}..${LEASE.max}, default ${LEASE.default})` });

export const TaskClaim = z
  .object({
    holderId: z
      .string()
      .openapi({ description: "The user (person or agent) that holds the task", example: "user_01jz8x4q0be0sv3c5kq9v1y2ab" }),
    expiresAt: z.string().openapi({ description: "When the claim stops holding the task, unless renewed" }),
  })
  .openapi("TaskClaim");
export type TaskClaimDto = z.infer<typeof TaskClaim>;

/** True when the task (the `tasks` in scope: the table, or a CTE that shadows it) holds a live claim. */
export const claimLive: SQL<boolean> = sql<boolean>`(${tasks.claimExpiresAt} > now())`;

/** True when no live claim holds the task. */
export const claimFree: SQL<boolean> = sql<boolean>`(${tasks.claimExpiresAt} is null or ${tasks.claimExpiresAt} <= now())`;

/** The task's claim as its answer carries it: null when none, or when it has expired. */
export const claimJson: SQL<TaskClaimDto | null> = sql`case when ${claimLive} then json_build_object('holderId', ${tasks.claimHolderId},
  'expiresAt', ${isoTimestamp(tasks.claimExpiresAt)}) end`;

/** The same from a stored row (an event's image) as of `at`. */
export function storedClaim(image: Record<string, unknown>, at: Date): TaskClaimDto | null {
  const [holderId, expires] = [image.claim_holder_id, image.claim_expires_at];
  if (typeof holderId !== "string" || typeof expires !== "string") return null;
  const expiresAt = new Date(expires);
  return expiresAt > at ? { holderId, expiresAt: iso(expiresAt) } : null;
}
