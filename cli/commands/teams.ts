import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { listArgs, listQuery, printList } from "../list";
import { printJson } from "../output";
import { openSession, type Session, unwrap } from "../session";

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
    const { client } = openSession(given);
    await printList(given, (q) => unwrap(client.GET("/teams", { params: { query: q } })), query, "teams", [
      { header: "PREFIX", value: (t: Schemas["TeamSelection"]) => t.prefix },
      { header: "NAME", value: (t: Schemas["TeamSelection"]) => t.name },
      { header: "PARENT", value: (t: Schemas["TeamSelection"]) => t.parent },
    ]);
  },
});

const create = defineCommand({
  meta: { name: "pm teams create", description: "Create a team (you become its OWNER)" },
  args: {
    name: { type: "positional", description: "The team's name", required: true },
    prefix: { type: "string", valueHint: "ENG", description: "Its tasks' prefix: 2..10 letters or digits", required: true },
    description: { type: "string", description: "What the team does" },
    parent: { type: "string", valueHint: "ENG|id", description: "Make it a sub-team of this team" },
    ...commonArgs,
  },
  async run({ args }) {
    const session = openSession(args);
    const parentId = args.parent;
    const body = { name: args.name, prefix: args.prefix.toUpperCase(), description: args.description, parentId };
    const answer = await unwrap(session.client.POST("/teams", { body }));
    if (args.json) return printJson(answer);
    console.log(`created the team ${answer.team.prefix} ${answer.team.name}`);
  },
});

/** The members of a team, or of the workspace (GET /users) without --team. */
const members = defineCommand({
  meta: { name: "pm teams members", description: "List a team's members with their team role" },
  args: { team: { type: "positional", valueHint: "ENG|id", description: "The team", required: true }, ...args },
  async run({ args: given, rawArgs }) {
    const query = listQuery(given, rawArgs, args);
    const session = openSession(given);
    const path = { id: given.team };
    type Member = Schemas["TeamMemberItemSelection"];
    await printList(given, (q) => unwrap(session.client.GET("/teams/{id}/members", { params: { path, query: q } })), query, "members", [
      { header: "NAME", value: (m: Member) => m.name },
      { header: "EMAIL", value: (m: Member) => m.email },
      { header: "ROLE", value: (m: Member) => m.role },
    ]);
  },
});

export const teams = defineCommand({
  meta: { name: "pm teams", description: "Teams" },
  subCommands: { list, create, members },
});
