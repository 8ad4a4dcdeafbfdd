// The request bodies and queries of worklogs (docs/api.md, "Time tracking"). A duration is given as seconds
// (`durationSeconds`) or as text (`duration`, read by the one parser), exactly one of them; a text it cannot read is
// 422 at `duration`.
import { z } from "@hono/zod-openapi";
import { isIsoDate } from "../../core/dates";
import { isIsoDateTime } from "../../store/list/values";
import { DURATION_FORMS, parseDuration } from "./duration";
import { DurationSeconds, EstimateSeconds, StartedAt, WorklogNote } from "./record";

const MAX_DURATION_TEXT = 64;
const DurationText = z
  .string()
  .max(MAX_DURATION_TEXT)
  .openapi({ description: `Instead of durationSeconds: ${DURATION_FORMS}`, example: "1h 30m" });

export const ADJUST_ESTIMATE = ["auto", "leave", "new", "manual"] as const;

const duration = {
  durationSeconds: DurationSeconds.optional().openapi({ description: "Seconds, 1 up to a year", example: 5400 }),
  duration: DurationText.optional(),
};

/** Exactly one of durationSeconds and duration, and a duration text the parser reads. */
function checkDuration(body: { durationSeconds?: number; duration?: string }, ctx: z.RefinementCtx, required: boolean) {
  const given = [body.durationSeconds !== undefined, body.duration !== undefined].filter(Boolean).length;
  if (given === 2) {
    ctx.addIssue({ code: "custom", path: ["duration"], message: "Give durationSeconds or duration, not both" });
  } else if (given === 0 && required) {
    for (const path of ["durationSeconds", "duration"])
      ctx.addIssue({ code: "custom", path: [path], message: "One of durationSeconds and duration is required" });
  } else if (body.duration !== undefined && body.duration.length <= MAX_DURATION_TEXT) {
    // A longer text is refused for its length alone.
    const seconds = parseDuration(body.duration);
    if (seconds === null) ctx.addIssue({ code: "custom", path: ["duration"], message: `Must be ${DURATION_FORMS}` });
    else if (!DurationSeconds.safeParse(seconds).success)
      ctx.addIssue({ code: "custom", path: ["duration"], message: "Must be at most a year" });
  }
}

/** A create body's fields (the MCP tool takes them too, with `startedAt` optional). */
export const worklogCreateShape = {
  startedAt: StartedAt.openapi({ description: "When the work started (ISO 8601 date-time)" }),
  ...duration,
  note: WorklogNote.optional().openapi({ description: "What was done: plain text, at most 5,000 characters" }),
  adjustEstimate: z.enum(ADJUST_ESTIMATE).default("auto").openapi({
    description:
      "What happens to the task's remainingSeconds: `auto` lowers it by the duration, `new` sets it to newEstimateSeconds, `manual` lowers it by reduceBySeconds, `leave` keeps it; never below 0",
  }),
  newEstimateSeconds: EstimateSeconds.optional().openapi({ description: "With adjustEstimate `new` (required there, refused otherwise)" }),
  reduceBySeconds: EstimateSeconds.optional().openapi({ description: "With adjustEstimate `manual` (required there, refused otherwise)" }),
};

/** A create's rules across fields: exactly one duration, read by the parser; each estimate field with its mode only. */
export function checkCreate(
  body: { durationSeconds?: number; duration?: string; adjustEstimate: string; newEstimateSeconds?: number; reduceBySeconds?: number },
  ctx: z.RefinementCtx,
) {
  checkDuration(body, ctx, true);
  const needs = { newEstimateSeconds: "new", reduceBySeconds: "manual" } as const;
  for (const [field, mode] of Object.entries(needs) as Array<[keyof typeof needs, string]>) {
    if (body.adjustEstimate === mode && body[field] === undefined)
      ctx.addIssue({ code: "custom", path: [field], message: `Required with adjustEstimate '${mode}'` });
    if (body.adjustEstimate !== mode && body[field] !== undefined)
      ctx.addIssue({ code: "custom", path: [field], message: `Only with adjustEstimate '${mode}'` });
  }
}

export const WorklogCreate = z
  .object(worklogCreateShape)
  .strict()
  .superRefine(checkCreate)
  .openapi("WorklogCreate", { description: "Exactly one of durationSeconds and duration (422 otherwise)." });
export type WorklogCreateInput = z.infer<typeof WorklogCreate>;

export const WorklogUpdate = z
  .object({ startedAt: StartedAt.optional(), ...duration, note: WorklogNote.optional() })
  .strict()
  .superRefine((body, ctx) => checkDuration(body, ctx, false))
  .openapi("WorklogUpdate", { description: "Partial; at most one of durationSeconds and duration." });
export type WorklogUpdateInput = z.infer<typeof WorklogUpdate>;

/** A checked body's duration in seconds (the parser read it already: WorklogCreate and WorklogUpdate refuse what it cannot). */
export const secondsOf = (body: { durationSeconds?: number; duration?: string }): number | undefined =>
  body.durationSeconds ?? (body.duration === undefined ? undefined : (parseDuration(body.duration) as number));

/** What an update writes. */
export type WorklogChange = { startedAt?: string; durationSeconds?: number; note?: string | null };

/** An RFC 3339 date (midnight UTC) or date-time. */
const Instant = z
  .string()
  .max(64)
  .refine((v) => isIsoDate(v) || isIsoDateTime(v), "Must be an RFC 3339 date (YYYY-MM-DD, midnight UTC) or date-time")
  .openapi({ example: "2026-03-02" });

export const SUMMARY_GROUPS = ["user", "team", "project", "task"] as const;
export const SummaryQuery = z
  .object({
    groupBy: z.enum(SUMMARY_GROUPS).openapi({ description: "What each row sums: an author, a team, a project (its tasks' now) or a task" }),
    from: Instant.optional().openapi({ description: "Worklogs that started at or after it (inclusive)" }),
    to: Instant.optional().openapi({ description: "Worklogs that started before it (exclusive)" }),
  })
  .superRefine((q, ctx) => {
    if (q.from && q.to && new Date(instant(q.from)) > new Date(instant(q.to)))
      ctx.addIssue({ code: "custom", path: ["to"], message: "Must not be before from" });
  });
export type SummaryParams = z.infer<typeof SummaryQuery>;

/** An Instant as a timestamp PostgreSQL reads (a date is its midnight in UTC). */
export const instant = (value: string) => (isIsoDate(value) ? `${value}T00:00:00Z` : value);

export const SummaryRow = z
  .object({
    key: z
      .string()
      .nullable()
      .openapi({ description: "The id of what the row sums (null: worklogs of tasks in no project, or of a user gone)" }),
    name: z.string().nullable().openapi({ description: "Its name: a user's or team's name, a project's name, a task's reference" }),
    seconds: z.number().int(),
  })
  .openapi("WorklogSummaryRow");
export const WorklogSummary = z
  .object({ rows: z.array(SummaryRow), totalSeconds: z.number().int() })
  .openapi("WorklogSummary", { description: "Rows by seconds, most first; totalSeconds sums them all" });
export type WorklogSummaryDto = z.infer<typeof WorklogSummary>;
