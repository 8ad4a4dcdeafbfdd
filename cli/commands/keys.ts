// `pm keys create|list|delete`: API keys for scripts and agents, limited to scopes (docs/api.md, least privilege) and teams, so a key
// made for CI or a bot can do only its job. The raw key is shown once, when it is created.
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs, repeated } from "../argv";
import { ApiError } from "../errors";
import { listArgs, listQuery } from "../list";
import { printJson, printNextCursor, printTable } from "../output";
import { SCOPES, type Scope, scopeNames, scopesText } from "../scopes";
import { openSession, unwrap } from "../session";
import { teamsText } from "./teams";

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
    const session = openSession(args);
    // Prefixes or ids: the API takes either.
    if (teams.length > 0) body.teamIds = teams;
    const answer = await unwrap(session.client.POST("/api-keys", { body }));
    if (args.json) return printJson(answer);
    // The key alone on stdout (`pm keys create --name ci > key`), what to know about it on stderr.
    console.log(answer.key);
    console.error(`Created the API key '${answer.apiKey.name}' (${answer.apiKey.id}).`);
    console.error("This is the only time it is shown: store it now (scripts read it from PM_API_KEY).");
  },
});

const listAllArgs = { ...listArgs, ...commonArgs } as const;

const list = defineCommand({
  meta: { name: "pm keys list", description: "List your API keys and your agents' keys (never the keys themselves)" },
  args: listAllArgs,
  async run({ args, rawArgs }) {
    const query = listQuery(args, rawArgs, listAllArgs);
    const session = openSession(args);
    const page = await unwrap(session.client.GET("/api-keys", { params: { query } }));
    if (args.json) return printJson(page);
    type Key = Schemas["ApiKeySelection"] & { scopes?: string[]; teamIds?: string[] | null };
    const keys: Key[] = page.api_keys;
    const teams = await teamsText(session, keys);
    printTable<Key>(keys, [
      { header: "ID", value: (k) => k.id },
      { header: "NAME", value: (k) => k.name },
      { header: "PREFIX", value: (k) => k.prefix },
      { header: "SCOPES", value: (k) => scopesText(k.scopes) },
      { header: "TEAMS", value: (k) => teams(k.teamIds) },
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
    const { client } = openSession(args);
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
