// `pm`: the project-management API from the terminal. Exit codes: 0 ok, 1 API error, 2 usage error, 3 not logged in
// (or 401). citty parses and dispatches; this runner adds the strict checks, `--help` at any level and the exit codes.
import { type ArgsDef, type CommandDef, defineCommand, type Resolvable, renderUsage, runCommand, type SubCommandsDef } from "citty";
// Only `version` is kept in the bundle (esbuild tree-shakes a JSON module's unused top-level keys).
import { version } from "../package.json";
import { checkCommandLine } from "./argv";
import { comment } from "./commands/comment";
import { events } from "./commands/events";
import { keys } from "./commands/keys";
import { labels } from "./commands/labels";
import { login, logout } from "./commands/login";
import { projects } from "./commands/projects";
import { search } from "./commands/search";
import { tasks } from "./commands/tasks";
import { teams } from "./commands/teams";
import { exportCommand, importCommand } from "./commands/transfer";
import { whoami } from "./commands/whoami";
import { reportFailure, UsageError } from "./errors";

const pm = defineCommand<ArgsDef>({
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
    search,
    labels,
    teams,
    projects,
    keys,
    events,
    export: exportCommand,
    import: importCommand,
  },
});

const VERSION_FLAGS = ["--version", "-V"];

/**
 * citty colours the help unless NO_COLOR is exactly "1" (or TEST, CI, TERM=dumb), also when stdout is a pipe or a
 * file: the escape codes go unless a terminal reads them and NO_COLOR (any value, no-color.org) is unset.
 */
function forTerminal(text: string): string {
  const colour = process.stdout.isTTY && !process.env.NO_COLOR;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is removed
  return colour ? text : text.replace(/\x1b\[[0-9;]*m/g, "");
}

const resolved = async <T>(value: Resolvable<T>): Promise<T> => (typeof value === "function" ? (value as () => T | Promise<T>)() : value);

/** The command `argv` names (following subcommand names) and the arguments after its name. */
async function commandOf(argv: string[]): Promise<{ command: CommandDef; rest: string[] }> {
  let command: CommandDef = pm;
  let rest = argv;
  for (;;) {
    const subCommands: SubCommandsDef = (await resolved(command.subCommands)) ?? {};
    const name = rest[0];
    if (name === undefined || !Object.hasOwn(subCommands, name)) return { command, rest };
    command = await resolved(subCommands[name]);
    rest = rest.slice(1);
  }
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && VERSION_FLAGS.includes(argv[0])) {
    console.log(`pm ${version}`);
    return 0;
  }
  const { command, rest } = await commandOf(argv);
  const name = (await resolved(command.meta))?.name ?? "pm";
  const options = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
  if (options.includes("--help") || options.includes("-h")) {
    console.log(forTerminal(await renderUsage(command)));
    return 0;
  }
  try {
    if (command.subCommands) {
      throw new UsageError(rest[0] === undefined ? `${name} needs a command` : `unknown command '${rest[0]}'`);
    }
    const defs: ArgsDef = (await resolved(command.args)) ?? {};
    checkCommandLine(rest, defs);
    await runCommand(pm, { rawArgs: argv });
    return 0;
  } catch (error) {
    // citty's own parse errors (a missing required option or argument) are usage errors too.
    const usage = error instanceof Error && error.name === "CLIError" ? new UsageError(error.message) : error;
    return reportFailure(usage, `Run \`${name} --help\` for usage.`);
  }
}

process.exitCode = await main(process.argv.slice(2));
