// `pm workspaces` (each workspace of yours: name, slug, your role, the current one marked) and `pm workspace use
// SLUG`. A login belongs to one workspace: `use` switches to the login kept for that workspace (cli/config.ts); one
// you have not signed in to yet takes `pm login`, choosing it on the device page. `pm members`: the workspace's people.
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs, oneOf } from "../argv";
import { loggedInWorkspaces, readLogin, useLogin } from "../config";
import { UsageError } from "../errors";
import { addFilter, listArgs, listQuery, printList } from "../list";
import { notSignedInTo, openSession, unwrap } from "../session";

type Workspace = Schemas["WorkspaceSelection"];
const listAllArgs = { ...listArgs, ...commonArgs } as const;

/**
 * Your role in each other workspace with a login kept here (a credential knows only its own workspace's role): its
 * GET /me, at once; a login that no longer works shows no role. Empty under PM_API_KEY, which keeps no logins.
 */
async function keptRoles(baseUrl: string | undefined, current: string): Promise<Map<string, string | null>> {
  if (process.env.PM_API_KEY) return new Map();
  const others = loggedInWorkspaces().filter((slug) => slug !== current);
  const roles = await Promise.all(
    others.map((workspace) =>
      unwrap(openSession({ "base-url": baseUrl, workspace }).client.GET("/me")).then(
        (me) => me.role,
        () => null,
      ),
    ),
  );
  return new Map(others.map((slug, i) => [slug, roles[i]]));
}

const list = defineCommand({
  meta: { name: "pm workspaces", description: "Your workspaces; * marks the one commands use" },
  args: listAllArgs,
  async run({ args, rawArgs }) {
    const query = listQuery(args, rawArgs, listAllArgs);
    const { client } = openSession(args);
    const me = await unwrap(client.GET("/me"));
    const roles = await keptRoles(args["base-url"], me.workspace.slug);
    roles.set(me.workspace.slug, me.role);
    const current = (w: Workspace) => w.id === me.workspace.id;
    await printList(args, (q) => unwrap(client.GET("/workspaces", { params: { query: q } })), query, "workspaces", [
      { header: " ", value: (w: Workspace) => (current(w) ? "*" : " ") },
      { header: "NAME", value: (w: Workspace) => w.name },
      { header: "SLUG", value: (w: Workspace) => w.slug },
      { header: "ROLE", value: (w: Workspace) => (w.slug ? roles.get(w.slug) : null) },
      { header: "LOGIN", value: (w: Workspace) => (w.slug && roles.has(w.slug) ? "yes" : "pm login") },
    ]);
  },
});

const use = defineCommand({
  meta: { name: "pm workspace use", description: "Make commands use your login to this workspace" },
  args: { slug: { type: "positional", description: "The workspace's slug (see `pm workspaces`)", required: true } },
  run({ args }) {
    if (process.env.PM_API_KEY) throw new UsageError("PM_API_KEY belongs to one workspace: unset it to use your logins");
    const login = readLogin(args.slug);
    if (!login) throw notSignedInTo(args.slug);
    useLogin(login);
    console.log(`now using ${args.slug} (${login.baseUrl})`);
  },
});

/** `pm workspaces` and `pm workspace` list; `pm workspace use SLUG` switches. */
export const workspace = defineCommand({
  meta: { name: "pm workspace", description: "Your workspaces: list them, or use one" },
  subCommands: { list, use },
});

type Member = Schemas["WorkspaceUserSelection"];
const ROLES = ["MEMBER", "ADMIN", "OWNER"] as const satisfies readonly Member["role"][];
const memberArgs = {
  role: { type: "string", valueHint: ROLES.join("|"), description: "Only members with this workspace role" },
  search: { type: "string", valueHint: "name", description: "Only members whose name contains this" },
  ...listAllArgs,
} as const;

export const members = defineCommand({
  meta: { name: "pm members", description: "The workspace's members (people and agents) with their role" },
  args: memberArgs,
  async run({ args, rawArgs }) {
    const query = listQuery(args, rawArgs, memberArgs);
    if (args.role) addFilter(query, "eq", "role", oneOf("role", args.role, ROLES));
    if (args.search) addFilter(query, "contains", "name", args.search);
    const { client } = openSession(args);
    await printList(args, (q) => unwrap(client.GET("/users", { params: { query: q } })), query, "users", [
      { header: "NAME", value: (u: Member) => u.name },
      { header: "EMAIL", value: (u: Member) => u.email },
      { header: "ROLE", value: (u: Member) => u.role },
      { header: "TYPE", value: (u: Member) => u.type },
    ]);
  },
});
