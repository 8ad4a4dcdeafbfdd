// `pm`: the project-management API from the terminal. Exit codes: 0 ok, 1 API error, 2 usage error, 3 not logged in
// (or 401). citty parses and dispatches; this runner adds the strict checks, `--help` at any level and the exit codes.
import { type ArgsDef, type CommandDef, defineCommand, type Resolvable, runCommand, type SubCommandsDef } from "citty";
import { checkCommandLine, takeJsonOptions } from "./argv";
import { api } from "./commands/api";
import { attach, attachments, download } from "./commands/attachments";
import { comment, comments } from "./commands/comment";
import { completionOf } from "./commands/completion";
import { cycles } from "./commands/cycles";
import { events } from "./commands/events";
import { inbox } from "./commands/inbox";
import { keys } from "./commands/keys";
import { labels } from "./commands/labels";
import { link } from "./commands/link";
import { login, logout } from "./commands/login";
import { milestones, projects } from "./commands/projects";
import { search } from "./commands/search";
import { sessions } from "./commands/sessions";
import { states } from "./commands/states";
import { sync } from "./commands/sync";
import { tasks } from "./commands/tasks";
import { teams } from "./commands/teams";
import { exportCommand, importCommand } from "./commands/transfer";
import { whoami } from "./commands/whoami";
import { worklog } from "./commands/worklog";
import { members, workspace } from "./commands/workspaces";
import { reportFailure, UsageError } from "./errors";
import { renderHelp } from "./help";
import { setJsonOutput } from "./output";
// Only `version` is kept in the bundle (esbuild tree-shakes a JSON module's unused top-level keys): the CLI's own package.
import { version } from "./package.json";
import { withTaskNumber } from "./task-number";

const pm: CommandDef<ArgsDef> = defineCommand<ArgsDef>({
  meta: {
    name: "pm",
    version,
    description: "The project-management API from the terminal (credentials: `pm login`, or PM_API_KEY and PM_BASE_URL)",
  },
  // Read by the runner below (citty's own --version is runMain's, which this runner does not use); declared for the help.
  args: { version: { type: "boolean", alias: "V", description: "Print pm's version" } },
  subCommands: {
    login,
    logout,
    whoami,
    tasks,
    comment,
    comments,
    attach,
    attachments,
    download,
    link,
    search,
    inbox,
    sessions,
    labels,
    teams,
    states,
    members,
    projects,
    milestones,
    cycles,
    workspaces: workspace,
    workspace,
    keys,
    events,
    sync,
    worklog,
    export: exportCommand,
    import: importCommand,
    api,
    completion: completionOf(() => pm),
  },
});

/**
 * Groups whose first word may be left out: `pm comment ENG-1 "text"` is `pm comment add …`, `pm comments ENG-1`
 * is `pm comments list ENG-1`, `pm workspaces` is `pm workspaces list`.
 */
const DEFAULT_SUBCOMMAND = new Map<CommandDef, string>([
  [comment, "add"],
  [comments, "list"],
  [workspace, "list"],
  [sessions, "list"],
  [inbox, "list"],
  [cycles, "list"],
]);

const VERSION_FLAGS = ["--version", "-V"];

const resolved = async <T>(value: Resolvable<T>): Promise<T> => (typeof value === "function" ? (value as () => T | Promise<T>)() : value);

/** Options of every command that calls the API, which may also come before the command's words (`pm --workspace X tasks list`). */
const GLOBAL_OPTIONS = ["--workspace", "--base-url"];

/** A global option (with its value) at the start of `words`: how many words it takes, 0 when there is none. */
function globalOptionAt(words: string[]): number {
  const [name, inline] = (words[0] ?? "").split(/=(.*)/s);
  if (!GLOBAL_OPTIONS.includes(name)) return 0;
  return inline === undefined ? 2 : 1;
}

/**
 * The command `argv` names (following subcommand names, defaults added), its words, and the arguments after them
 * (global options given before a command's words moved after them).
 */
async function commandOf(argv: string[]): Promise<{ command: CommandDef; path: string[]; rest: string[] }> {
  let command: CommandDef = pm;
  const path: string[] = [];
  const globals: string[] = [];
  let rest = argv;
  for (;;) {
    for (let taken = globalOptionAt(rest); taken > 0; taken = globalOptionAt(rest)) {
      globals.push(...rest.slice(0, taken));
      rest = rest.slice(taken);
    }
    const subCommands: SubCommandsDef = (await resolved(command.subCommands)) ?? {};
    const fallback = DEFAULT_SUBCOMMAND.get(command);
    let name = rest[0];
    const asked = name !== undefined && Object.hasOwn(subCommands, name);
    // Help on the group itself stays the group's (`pm comment --help` lists add, edit, delete).
    if (!asked && fallback && !(rest[0] === "--help" || rest[0] === "-h")) {
      name = fallback;
      rest = [fallback, ...rest];
    }
    if (name === undefined || !Object.hasOwn(subCommands, name)) {
      const end = rest.includes("--") ? rest.indexOf("--") : rest.length;
      return { command, path, rest: [...rest.slice(0, end), ...globals, ...rest.slice(end)] };
    }
    command = await resolved(subCommands[name]);
    path.push(name);
    rest = rest.slice(1);
  }
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && VERSION_FLAGS.includes(argv[0])) {
    console.log(`pm ${version}`);
    return 0;
  }
  const { command, path, rest } = await commandOf(argv);
  const name = ["pm", ...path].join(" ");
  const options = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
  if (options.includes("--help") || options.includes("-h")) {
    console.log(await renderHelp(command, path, DEFAULT_SUBCOMMAND.get(command)));
    return 0;
  }
  try {
    if (command.subCommands) {
      throw new UsageError(rest[0] === undefined ? `${name} needs a command` : `unknown command '${rest[0]}'`);
    }
    const defs: ArgsDef = (await resolved(command.args)) ?? {};
    const { tokens, fields, jq } = takeJsonOptions(rest, defs);
    setJsonOutput(fields, jq);
    checkCommandLine(tokens, defs);
    await runCommand(pm, { rawArgs: [...path, ...(await withTaskNumber(tokens, defs))] });
    return 0;
  } catch (error) {
    // citty's own parse errors (a missing required option or argument) are usage errors too.
    const usage = error instanceof Error && error.name === "CLIError" ? new UsageError(error.message) : error;
    return reportFailure(usage, `Run \`${name} --help\` for usage.`);
  }
}

process.exitCode = await main(process.argv.slice(2));
