// `pm keys create|list|delete`: API keys for scripts and agents, limited to scopes (contract §12) and teams, so a key
// made for CI or a bot can do only its job. The raw key is shown once, when it is created.
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
// The scope names the API checks, from the module that defines them (bundled; it imports nothing).
import { SCOPES, type Scope } from "../../src/core/scopes";
import { commonArgs, repeated } from "../argv";
import { ApiError, UsageError } from "../errors";
import { listArgs, listQuery } from "../list";
import { printJson, printNextCursor, printTable } from "../output";
import { openSession, type Session, unwrap } from "../session";
import { resolveTeamId } from "./teams";

/** Scope names as the command line gives them: repeated, or several in one value (comma- or space-separated). */
export function scopeNames(values: string[], option: string): Scope[] {
  const names = [...new Set(values.flatMap((value) => value.split(/[\s,]+/)).filter(Boolean))];
  for (const name of names) {
    if (!(SCOPES as readonly string[]).includes(name))
      throw new UsageError(`--${option} '${name}' is not a scope (scopes: ${SCOPES.join(", ")})`);
  }
  return names as Scope[];
}

/** `all` for every scope or every team (the default of a key made without them), else the names. */
const scopesText = (scopes: string[] | undefined) => (scopes && SCOPES.every((scope) => scopes.includes(scope)) ? "all" : scopes);

const createArgs = {
  name: { type: "string", description: "What the key is for, e.g. ci or triage-bot", required: true },
  scope: {
    type: "string",
    valueHint: "scope",
    description: `Repeatable; what the key may do, within your roles: ${SCOPES.join(", ")}. Default: every scope`,
  },
  team: { type: "string", valueHint: "ENG|id", description: "Repeatable; the only teams the key reaches. Default: every team" },
  "expires-at": { type: "string", valueHint: "ISO date-time", description: "When the key stops working (default: never)" },
  ...commonArgs,
} as const;

const create = defineCommand({
  meta: { name: "pm keys create", description: "Create an API key (printed once: store it now)" },
  args: createArgs,
  async run({ args, rawArgs }) {
    const scopes = repeated(rawArgs, createArgs, "scope");
    const teams = repeated(rawArgs, createArgs, "team");
    const body: Schemas["ApiKeyCreate"] & { scopes?: Scope[]; teamIds?: string[] } = { name: args.name };
    if (scopes.length > 0) body.scopes = scopeNames(scopes, "scope");
    if (args["expires-at"] !== undefined) body.expiresAt = args["expires-at"];
    const session = openSession(args["base-url"]);
    if (teams.length > 0) body.teamIds = await Promise.all(teams.map((team) => resolveTeamId(session, team)));
    const answer = await unwrap(session.client.POST("/api-keys", { body }));
    if (args.json) return printJson(answer);
    // The key alone on stdout (`pm keys create --name ci > key`), what to know about it on stderr.
    console.log(answer.key);
    console.error(`Created the API key '${answer.apiKey.name}' (${answer.apiKey.id}).`);
    console.error("This is the only time it is shown: store it now (scripts read it from PM_API_KEY).");
  },
});

const listAllArgs = { ...listArgs, ...commonArgs } as const;

/** Team ids as prefixes (`ENG`), looked up only when a key is bound to teams. */
async function teamPrefixes({ client }: Session, keys: { teamIds?: string[] | null }[]): Promise<Map<string, string>> {
  if (!keys.some((key) => key.teamIds?.length)) return new Map();
  const { teams } = await unwrap(client.GET("/teams", { params: { query: { fields: "id,prefix", limit: 250 } } }));
  return new Map(teams.map((team) => [team.id ?? "", team.prefix ?? ""]));
}

const list = defineCommand({
  meta: { name: "pm keys list", description: "List your API keys and your agents' keys (never the keys themselves)" },
  args: listAllArgs,
  async run({ args, rawArgs }) {
    const query = listQuery(args, rawArgs, listAllArgs);
    const session = openSession(args["base-url"]);
    const page = await unwrap(session.client.GET("/api-keys", { params: { query } }));
    if (args.json) return printJson(page);
    type Key = Schemas["ApiKeySelection"] & { scopes?: string[]; teamIds?: string[] | null };
    const keys: Key[] = page.api_keys;
    const prefixes = await teamPrefixes(session, keys);
    printTable<Key>(keys, [
      { header: "ID", value: (k) => k.id },
      { header: "NAME", value: (k) => k.name },
      { header: "PREFIX", value: (k) => k.prefix },
      { header: "SCOPES", value: (k) => scopesText(k.scopes) },
      {
        header: "TEAMS",
        value: (k) => (k.teamIds ? k.teamIds.map((id) => prefixes.get(id) || id) : k.teamIds === null ? "all" : undefined),
      },
      { header: "LAST USED", value: (k) => k.lastUsedAt },
      { header: "EXPIRES", value: (k) => k.expiresAt },
    ]);
    printNextCursor(page.pagination.nextCursor);
  },
});

const remove = defineCommand({
  meta: { name: "pm keys delete", description: "Delete (revoke) an API key: it stops working at once" },
  args: {
    id: { type: "positional", description: "The key's id (apik_…, from `pm keys list`)", required: true },
    "base-url": commonArgs["base-url"],
  },
  async run({ args }) {
    const { client } = openSession(args["base-url"]);
    // 204 and no body: nothing for `unwrap` to return.
    const { response, error } = await client.DELETE("/api-keys/{id}", { params: { path: { id: args.id } } });
    if (!response.ok) throw ApiError.fromBody(response.status, error);
    console.log(`Deleted the API key ${args.id}`);
  },
});

export const keys = defineCommand({
  meta: { name: "pm keys", description: "API keys for scripts and agents, limited to scopes and teams" },
  subCommands: { create, list, delete: remove },
});
