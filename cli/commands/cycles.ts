// `pm cycles [list]` (a team's cycles, `--state active`) and `pm cycles view ENG-C3`: the cycle's progress as a small
// bar chart, as gh's status shows a run, and its burn-up day by day (docs/api.md, "Cycles").
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs, oneOf } from "../argv";
import { addFilter, listArgs, listQuery, printList } from "../list";
import { colour, printJson, printRecord } from "../output";
import { openSession, unwrap } from "../session";

type Cycle = Schemas["CycleSelection"];
type Tally = { tasks: number; estimate: number };

const STATES = ["upcoming", "active", "ended"] as const;
const BAR = 24;

const listAllArgs = {
  team: { type: "string", valueHint: "ENG|id", description: "Only this team's cycles" },
  state: { type: "string", valueHint: STATES.join("|"), description: "Only cycles in this state" },
  ...listArgs,
  ...commonArgs,
} as const;

const day = (iso: string | undefined) => iso?.slice(0, 10);

const list = defineCommand({
  meta: { name: "pm cycles list", description: "List the workspace's cycles (a team's with --team)" },
  args: listAllArgs,
  async run({ args, rawArgs }) {
    const query = listQuery(args, rawArgs, listAllArgs);
    if (args.state) addFilter(query, "eq", "state", oneOf("state", args.state.toLowerCase(), STATES));
    if (args.team) addFilter(query, "eq", "teamId", args.team);
    const session = openSession(args);
    await printList(args, (q) => unwrap(session.client.GET("/cycles", { params: { query: q } })), query, "cycles", [
      { header: "REF", value: (c: Cycle) => c.reference },
      { header: "STATE", value: (c: Cycle) => c.state },
      { header: "DATES", value: (c: Cycle) => `${day(c.startsAt)} → ${day(c.endsAt)}` },
      { header: "DONE", value: (c: Cycle) => c.progress && `${c.progress.completed?.tasks}/${c.progress.scope?.tasks}` },
      { header: "NAME", value: (c: Cycle) => c.name },
    ]);
  },
});

/** `█████░░░░  3/8 tasks, 5/13 points`: `part` of `whole` as a bar of BAR cells. */
function bar(label: string, part: Tally, whole: Tally, paint: (s: string) => string): string {
  const filled = whole.tasks === 0 ? 0 : Math.round((part.tasks / whole.tasks) * BAR);
  const cells = `${paint("█".repeat(filled))}${"░".repeat(BAR - filled)}`;
  return `${label.padEnd(10)} ${cells}  ${part.tasks}/${whole.tasks} tasks, ${part.estimate}/${whole.estimate} points`;
}

const view = defineCommand({
  meta: { name: "pm cycles view", description: "A cycle's progress as a bar chart, and its days (--history)" },
  args: {
    cycle: { type: "positional", description: "The cycle: ENG-C3 or its id", required: true },
    history: { type: "boolean", description: "Its scope and completed tasks day by day" },
    ...commonArgs,
  },
  async run({ args }) {
    const { client } = openSession(args);
    const path = { id: args.cycle };
    // The whole cycle: no `fields` asked.
    const cycle = (await unwrap(client.GET("/cycles/{id}", { params: { path } }))).cycle as Schemas["Cycle"];
    const days = args.history ? (await unwrap(client.GET("/cycles/{id}/history", { params: { path } }))).days : undefined;
    if (args.json) return printJson(days ? { cycle, days } : { cycle });
    const paint = (code: number) => (s: string) => (colour() ? `\x1b[${code}m${s}\x1b[39m` : s);
    const { scope, started, completed, canceled } = cycle.progress;
    printRecord([
      ["Cycle", `${cycle.reference} ${cycle.name}`],
      ["State", cycle.state],
      ["Dates", `${day(cycle.startsAt)} → ${day(cycle.endsAt)}`],
      ["Scope", `${scope.tasks} tasks, ${scope.estimate} points`],
    ]);
    console.log("");
    console.log(bar("completed", completed, scope, paint(32)));
    console.log(bar("started", started, scope, paint(33)));
    console.log(bar("canceled", canceled, scope, paint(90)));
    if (!days) return;
    console.log("");
    const top = Math.max(1, ...days.map((d) => d.scope.tasks));
    for (const d of days) {
      const done = Math.round((d.completed.tasks / top) * BAR);
      const rest = Math.round((d.scope.tasks / top) * BAR) - done;
      console.log(`${d.date}  ${paint(32)("█".repeat(done))}${"░".repeat(Math.max(0, rest))}  ${d.completed.tasks}/${d.scope.tasks}`);
    }
  },
});

export const cycles = defineCommand({
  meta: { name: "pm cycles", description: "A team's cycles: list them, view one's progress" },
  subCommands: { list, view },
});
