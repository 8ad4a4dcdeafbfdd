// `pm worklog add ENG-12 1h30m --note …` logs time (started now minus the duration, unless --started says); `pm worklog
// list --me --from … --to …` lists worklogs; `pm worklog report --by user --from … --to …` prints the summary as a table.
// A duration is read by the API's own parser, so the CLI refuses exactly what the API would.
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { DURATION_FORMS, parseDuration } from "../../src/resources/worklogs/duration";
import { commonArgs } from "../argv";
import { UsageError } from "../errors";
import { addFilter, listArgs, listQuery, printList } from "../list";
import { printJson, printTable } from "../output";
import { openSession, unwrap } from "../session";

/** `1h 30m`: seconds as a person reads them (whole minutes; seconds only under a minute). */
export function hours(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.round(seconds / 60);
  const [h, m] = [Math.floor(minutes / 60), minutes % 60];
  return h === 0 ? `${m}m` : m === 0 ? `${h}h` : `${h}h ${m}m`;
}

/** A duration argument in seconds, or a usage error naming it. */
function secondsOf(option: string, text: string): number {
  const seconds = parseDuration(text);
  if (seconds === null) throw new UsageError(`${option} must be ${DURATION_FORMS} (got '${text}')`);
  return seconds;
}

/** `--from`/`--to`: a date (its midnight in UTC) or a date-time, as the API's summary takes them. */
const instant = (value: string) => (/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
const rangeArgs = {
  from: { type: "string", valueHint: "date", description: "Started at or after it (YYYY-MM-DD, midnight UTC, or a date-time)" },
  to: { type: "string", valueHint: "date", description: "Started before it (exclusive)" },
} as const;

const ADJUST = ["auto", "leave", "new", "manual"] as const;

const add = defineCommand({
  meta: { name: "pm worklog add", description: "Log time on a task: pm worklog add ENG-12 1h30m --note 'Fixed the login'" },
  args: {
    ref: { type: "positional", description: "Task reference (ENG-12) or id", valueHint: "ref", required: true },
    duration: { type: "positional", description: "How long: 1h30m, 45m, 2d (8h days)", valueHint: "duration", required: true },
    note: { type: "string", description: "What was done" },
    started: { type: "string", valueHint: "date-time", description: "When it started (default: now minus the duration)" },
    adjust: {
      type: "string",
      valueHint: ADJUST.join("|"),
      description: "The task's remaining estimate: auto (lower it by the duration, the default), leave, new, manual",
    },
    "new-estimate": { type: "string", valueHint: "duration", description: "With --adjust new: what remains now" },
    "reduce-by": { type: "string", valueHint: "duration", description: "With --adjust manual: how much less remains" },
    ...commonArgs,
  },
  async run({ args }) {
    const durationSeconds = secondsOf("the duration", args.duration);
    const adjustEstimate = (args.adjust ?? "auto") as (typeof ADJUST)[number];
    if (!ADJUST.includes(adjustEstimate)) throw new UsageError(`--adjust takes ${ADJUST.join(", ")} (got '${args.adjust}')`);
    const body = {
      startedAt: args.started ?? new Date(Date.now() - durationSeconds * 1000).toISOString(),
      durationSeconds,
      note: args.note,
      adjustEstimate,
      newEstimateSeconds: args["new-estimate"] === undefined ? undefined : secondsOf("--new-estimate", args["new-estimate"]),
      reduceBySeconds: args["reduce-by"] === undefined ? undefined : secondsOf("--reduce-by", args["reduce-by"]),
    };
    const { client } = openSession(args);
    const answer = await unwrap(client.POST("/tasks/{id}/worklogs", { params: { path: { id: args.ref } }, body }));
    if (args.json) return printJson(answer);
    console.log(`logged ${hours(answer.worklog.durationSeconds)} on ${args.ref.toUpperCase()}`);
  },
});

type Worklog = Schemas["WorklogSelection"];
const listAllArgs = {
  me: { type: "boolean", description: "Only yours" },
  task: { type: "string", valueHint: "ref", description: "Only this task's (ENG-12)" },
  user: { type: "string", valueHint: "email", description: "Only this person's or agent's" },
  ...rangeArgs,
  ...listArgs,
  ...commonArgs,
} as const;

const list = defineCommand({
  meta: { name: "pm worklog list", description: "Worklogs, earliest first: pm worklog list --me --from 2026-03-02 --to 2026-03-09" },
  args: listAllArgs,
  async run({ args, rawArgs }) {
    const { client } = openSession(args);
    // The table names each task by its reference (`task{…}`); --json answers the worklogs as the API does.
    const query = { "sort[startedAt]": "asc", ...listQuery(args, rawArgs, listAllArgs) };
    if (!args.json) query.fields ??= "id,task{reference},startedAt,durationSeconds,note";
    if (args.me) addFilter(query, "eq", "userId", (await unwrap(client.GET("/me"))).user.id);
    if (args.user) addFilter(query, "eq", "userId", args.user);
    if (args.task) addFilter(query, "eq", "taskId", args.task);
    if (args.from) addFilter(query, "gte", "startedAt", instant(args.from));
    if (args.to) addFilter(query, "lt", "startedAt", instant(args.to));
    await printList(args, (q) => unwrap(client.GET("/worklogs", { params: { query: q } })), query, "worklogs", [
      { header: "STARTED", value: (w: Worklog) => (w.startedAt ? `${w.startedAt.slice(0, 16).replace("T", " ")} UTC` : undefined) },
      { header: "TASK", value: (w: Worklog) => w.task?.reference },
      { header: "TIME", value: (w: Worklog) => (w.durationSeconds === undefined ? undefined : hours(w.durationSeconds)) },
      { header: "NOTE", value: (w: Worklog) => w.note },
      { header: "ID", value: (w: Worklog) => w.id },
    ]);
  },
});

const BY = ["user", "team", "project", "task"] as const;

const report = defineCommand({
  meta: { name: "pm worklog report", description: "Time by user, team, project or task: pm worklog report --by user --from … --to …" },
  args: { by: { type: "string", valueHint: BY.join("|"), description: "What each row sums (default user)" }, ...rangeArgs, ...commonArgs },
  async run({ args }) {
    const groupBy = (args.by ?? "user") as (typeof BY)[number];
    if (!BY.includes(groupBy)) throw new UsageError(`--by takes ${BY.join(", ")} (got '${args.by}')`);
    const { client } = openSession(args);
    const query = { groupBy, from: args.from, to: args.to };
    const summary = await unwrap(client.GET("/worklogs/summary", { params: { query } }));
    if (args.json) return printJson(summary);
    type Row = (typeof summary.rows)[number] | { key: null; name: string; seconds: number };
    const rows: Row[] = [...summary.rows, { key: null, name: "TOTAL", seconds: summary.totalSeconds }];
    printTable(rows, [
      { header: groupBy.toUpperCase(), value: (r: Row) => r.name ?? (groupBy === "project" ? "(no project)" : "(gone)") },
      { header: "TIME", value: (r: Row) => hours(r.seconds) },
      { header: "HOURS", value: (r: Row) => (r.seconds / 3600).toFixed(2) },
    ]);
  },
});

export const worklog = defineCommand({
  meta: { name: "pm worklog", description: "Time tracking: log time on tasks, list worklogs, report timesheets" },
  subCommands: { add, list, report },
});
