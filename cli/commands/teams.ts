import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { ApiError } from "../errors";
import { listArgs, listQuery } from "../list";
import { printJson, printNextCursor, printTable } from "../output";
import { openSession, type Session, unwrap } from "../session";

/** A team given as its id or its prefix (`ENG`, any case): the id (a prefix costs one lookup). */
export async function resolveTeamId({ client }: Session, team: string): Promise<string> {
  if (team.startsWith("team_")) return team;
  const prefix = team.toUpperCase();
  const query = { "filter[eq][prefix]": prefix, fields: "id", limit: 1 };
  const { teams } = await unwrap(client.GET("/teams", { params: { query } }));
  if (!teams[0]?.id) throw new ApiError(404, "NOT_FOUND", `No team with the prefix '${prefix}'`);
  return teams[0].id;
}

/**
 * How credentials' teams read (`teamIds`: null for every team): prefixes, `all`, or `-` from an API that does not say.
 * The prefixes cost one request, made only when one of them is bound to teams; ids stand in when it is refused (a
 * credential without the `read` scope).
 */
export async function teamsText(
  { client }: Session,
  bound: { teamIds?: string[] | null }[],
): Promise<(teamIds: string[] | null | undefined) => string[] | string | undefined> {
  const prefixes = new Map<string, string>();
  if (bound.some((credential) => credential.teamIds?.length)) {
    const { data } = await client.GET("/teams", { params: { query: { fields: "id,prefix", limit: 250 } } });
    for (const team of data?.teams ?? []) if (team.id && team.prefix) prefixes.set(team.id, team.prefix);
  }
  return (teamIds) => (teamIds === null ? "all" : teamIds?.map((id) => prefixes.get(id) ?? id));
}

const args = { ...listArgs, ...commonArgs } as const;

const list = defineCommand({
  meta: { name: "pm teams list", description: "List the workspace's teams" },
  args,
  async run({ args: given, rawArgs }) {
    const query = listQuery(given, rawArgs, args);
    const { client } = openSession(given["base-url"]);
    const page = await unwrap(client.GET("/teams", { params: { query } }));
    if (given.json) return printJson(page);
    printTable<Schemas["TeamSelection"]>(page.teams, [
      { header: "PREFIX", value: (t) => t.prefix },
      { header: "NAME", value: (t) => t.name },
      { header: "PARENT", value: (t) => t.parent },
      { header: "ID", value: (t) => t.id },
    ]);
    printNextCursor(page.pagination.nextCursor);
  },
});

export const teams = defineCommand({
  meta: { name: "pm teams", description: "Teams" },
  subCommands: { list },
});
