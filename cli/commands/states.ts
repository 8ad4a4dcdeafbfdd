// `pm states [ENG]`: a team's workflow states in order (every team's without one), with what each means: its category.
// A task's status names one by key or name (`pm tasks edit ENG-12 --state "In QA"`).
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { type Column, printJson, printTable } from "../output";
import { openSession, unwrap } from "../session";

type State = Schemas["WorkflowState"] & { team?: string };

const COLUMNS: Column<State>[] = [
  { header: "KEY", value: (s) => s.key },
  { header: "NAME", value: (s) => s.name },
  { header: "CATEGORY", value: (s) => s.category },
  { header: "COLOR", value: (s) => s.color },
];

export const states = defineCommand({
  meta: { name: "pm states", description: "List a team's workflow states in order, with their categories (every team's without one)" },
  args: {
    team: { type: "positional", valueHint: "ENG|id", description: "The team (default: every team)", required: false },
    ...commonArgs,
  },
  async run({ args }) {
    const { client } = openSession(args);
    const teams = args.team
      ? [{ id: args.team, prefix: args.team.toUpperCase() }]
      : (await unwrap(client.GET("/teams", { params: { query: { fields: "id,prefix", limit: 250 } } }))).teams.map((t) => ({
          id: String(t.id),
          prefix: String(t.prefix),
        }));
    const rows: State[] = [];
    for (const team of teams) {
      const { states } = await unwrap(client.GET("/teams/{id}/states", { params: { path: { id: team.id } } }));
      rows.push(...states.map((state) => ({ ...state, team: team.prefix })));
    }
    if (args.json) return printJson({ states: rows.map(({ team: _t, ...state }) => state) });
    printTable(rows, args.team ? COLUMNS : [{ header: "TEAM", value: (s) => s.team }, ...COLUMNS]);
  },
});
