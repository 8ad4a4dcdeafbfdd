// A bare number names a task as gh's issue numbers name an issue: `pm tasks view 12` is task 12 of the default team,
// ENG-12. The default team is PM_TEAM, else the only team the credential sees (one request, made only for a number).
import type { ArgsDef } from "citty";
import { scan } from "./argv";
import { UsageError } from "./errors";
import { openSession, type SessionOptions, unwrap } from "./session";

const TASK_NUMBER = /^#?(\d+)$/;

/** `tokens` with the task argument (`ref`) of `defs` made a reference when it is a bare number (`12`, `#12`). */
export async function withTaskNumber(tokens: string[], defs: ArgsDef): Promise<string[]> {
  const at = Object.entries(defs)
    .filter(([, def]) => def.type === "positional")
    .findIndex(([name]) => name === "ref");
  if (at === -1) return tokens;
  const { positionals, positionalAt, options } = scan(tokens, defs);
  const number = TASK_NUMBER.exec(positionals[at] ?? "");
  if (!number) return tokens;
  const given: SessionOptions = Object.fromEntries(options.map(({ name, value }) => [name, value]));
  const expanded = [...tokens];
  expanded[positionalAt[at]] = `${await defaultTeam(given, number[1])}-${number[1]}`;
  return expanded;
}

async function defaultTeam(options: SessionOptions, number: string): Promise<string> {
  if (process.env.PM_TEAM) return process.env.PM_TEAM;
  const { client } = openSession(options);
  const { teams } = await unwrap(client.GET("/teams", { params: { query: { fields: "prefix", limit: 2 } } }));
  if (teams.length === 1 && teams[0].prefix) return teams[0].prefix;
  throw new UsageError(
    `${number} is a task number, but of which team? Write the reference (ENG-${number}), or set PM_TEAM to a team's prefix (the default team)`,
  );
}
