// `--help` as people read it on an 80-column terminal: the description, usage, arguments, options and commands,
// each description wrapped beside its name (or below it, when the name is long) within the terminal's width.
import type { ArgDef, ArgsDef, CommandDef, Resolvable } from "citty";
import { colour } from "./output";

const resolved = async <T>(value: Resolvable<T> | undefined): Promise<T | undefined> =>
  typeof value === "function" ? (value as () => T | Promise<T>)() : value;

/** The column descriptions start at, unless a name is longer. */
const NAME_WIDTH = 26;

/** Words of `text` in lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...lines, line] : lines;
}

/** `  name   description` rows, the description wrapped with a hanging indent. */
function rows(entries: [name: string, description: string][], width: number): string[] {
  const out: string[] = [];
  const column = Math.min(NAME_WIDTH, Math.max(...entries.map(([name]) => name.length)) + 4);
  const room = Math.max(20, width - column);
  for (const [name, description] of entries) {
    const text = wrap(description, room);
    const first = `  ${name}`;
    if (first.length + 2 > column) out.push(first);
    else out.push(`${first.padEnd(column)}${text.shift() ?? ""}`.trimEnd());
    for (const line of text) out.push(`${" ".repeat(column)}${line}`);
  }
  return out;
}

function optionName(name: string, def: ArgDef): string {
  const alias = "alias" in def && def.alias !== undefined ? [def.alias].flat()[0] : undefined;
  const flag = `${alias ? `-${alias}, ` : "    "}--${name}`;
  // A flag with a value hint takes an optional value (`--json [fields]`).
  if (def.type === "boolean") return def.valueHint ? `${flag} [${def.valueHint}]` : flag;
  return `${flag} ${def.valueHint ? `<${def.valueHint}>` : "<value>"}`;
}

/** The help of `command`, whose words after `pm` are `path`; `fallback`: the subcommand its first word may leave out. */
export async function renderHelp(command: CommandDef, path: string[], fallback?: string): Promise<string> {
  const width = Math.min(process.stdout.isTTY ? process.stdout.columns || 80 : 80, 100);
  const bold = (text: string) => (colour() ? `\x1b[1m${text}\x1b[22m` : text);
  const meta = await resolved(command.meta);
  const args: ArgsDef = (await resolved(command.args)) ?? {};
  const subs = (await resolved(command.subCommands)) ?? {};
  const name = ["pm", ...path].join(" ");
  const positionals = Object.entries(args).filter(([, def]) => def.type === "positional");
  const options = Object.entries(args).filter(([, def]) => def.type !== "positional");
  const usage = [
    name,
    ...(Object.keys(subs).length ? ["<command>"] : []),
    ...positionals.map(([n, def]) => (def.required === false ? `[${n}]` : `<${n}>`)),
    ...(options.length ? ["[options]"] : []),
  ].join(" ");
  const out = [...wrap(meta?.description ?? "", width), "", `${bold("USAGE")} ${usage}`];
  if (fallback) out.push(`      (\`${name} …\` is \`${name} ${fallback} …\`)`);
  if (positionals.length) {
    const described = (n: string, def: ArgDef) =>
      `${def.description ?? ""}${def.valueHint && def.valueHint !== n ? `: ${def.valueHint}` : ""}`;
    out.push(
      "",
      bold("ARGUMENTS"),
      ...rows(
        positionals.map(([n, def]) => [n, described(n, def)]),
        width,
      ),
    );
  }
  const optionRows: [string, string][] = options.map(([n, def]) => [optionName(n, def), def.description ?? ""]);
  optionRows.push(["-h, --help", "Show this help"]);
  out.push("", bold("OPTIONS"), ...rows(optionRows, width));
  if (Object.keys(subs).length) {
    const commands: [string, string][] = [];
    for (const [sub, def] of Object.entries(subs)) commands.push([sub, (await resolved((await resolved(def))?.meta))?.description ?? ""]);
    out.push("", bold("COMMANDS"), ...rows(commands, width), "", `Run \`${name} <command> --help\` for a command's options.`);
  }
  return out.join("\n");
}
