// `pm completion bash|zsh|fish`: a completion script made from the same command tree as `--help` (commands,
// sub-commands and each one's options), so it cannot drift from the commands. zsh runs the bash script through
// bashcompinit. Install: `pm completion bash > ~/.local/share/bash-completion/completions/pm`, or `eval`/`source` it.
import { type ArgsDef, type CommandDef, defineCommand, type Resolvable } from "citty";
import { UsageError } from "../errors";

interface Node {
  /** The command's words after `pm` (empty for `pm` itself). */
  path: string[];
  subcommands: string[];
  options: { name: string; alias?: string; description: string }[];
  description: string;
}

const resolved = async <T>(value: Resolvable<T> | undefined): Promise<T | undefined> =>
  typeof value === "function" ? (value as () => T | Promise<T>)() : value;

/** Every command of the tree, depth first. */
async function walk(command: CommandDef, path: string[] = []): Promise<Node[]> {
  const subs = (await resolved(command.subCommands)) ?? {};
  const args: ArgsDef = (await resolved(command.args)) ?? {};
  const meta = await resolved(command.meta);
  const options = Object.entries(args).flatMap(([name, def]) =>
    def.type === "positional"
      ? []
      : [{ name, alias: "alias" in def ? [def.alias ?? []].flat()[0] : undefined, description: def.description ?? "" }],
  );
  const node: Node = {
    path,
    subcommands: Object.keys(subs),
    options: [...options, { name: "help", alias: "h", description: "Show help" }],
    description: meta?.description ?? "",
  };
  const children = await Promise.all(
    Object.entries(subs).map(async ([name, sub]) => walk((await resolved(sub)) as CommandDef, [...path, name])),
  );
  return [node, ...children.flat()];
}

const words = (node: Node) => [...node.subcommands, ...node.options.flatMap((o) => [`--${o.name}`, ...(o.alias ? [`-${o.alias}`] : [])])];

function bash(nodes: Node[]): string {
  const cases = nodes.map((node) => `    "${node.path.join(" ")}") words="${words(node).join(" ")}" ;;`);
  const groups = nodes
    .filter((node) => node.subcommands.length)
    .flatMap((node) => node.subcommands.map((sub) => [...node.path, sub].join(" ")));
  return `# pm completion for bash (and zsh through bashcompinit): made by \`pm completion bash\`
_pm() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" next w i words=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ $w == -* ]] && continue
    next="\${path:+$path }$w"
    case "$next" in
      ${groups.map((g) => `"${g}"`).join("|")}) path="$next" ;;
    esac
  done
  case "$path" in
${cases.join("\n")}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _pm pm
`;
}

function zsh(nodes: Node[]): string {
  return `#compdef pm\n# pm completion for zsh: made by \`pm completion zsh\`\nautoload -U +X bashcompinit && bashcompinit\n${bash(nodes)}`;
}

const quote = (text: string) => `'${text.replace(/'/g, "\\'")}'`;

function fish(nodes: Node[]): string {
  const lines = ["# pm completion for fish: made by `pm completion fish`", "complete -c pm -f"];
  for (const node of nodes) {
    const seen = node.path.map((word) => `__fish_seen_subcommand_from ${word}`);
    const below = node.subcommands.length ? [`not __fish_seen_subcommand_from ${node.subcommands.join(" ")}`] : [];
    const condition = node.path.length === 0 ? "__fish_use_subcommand" : [...seen, ...below].join("; and ");
    for (const sub of node.subcommands) lines.push(`complete -c pm -n ${quote(condition)} -a ${sub}`);
    for (const option of node.options) {
      lines.push(
        `complete -c pm -n ${quote(condition)} -l ${option.name}${option.alias ? ` -s ${option.alias}` : ""} -d ${quote(option.description.slice(0, 60))}`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

const SHELLS = { bash, zsh, fish } as const;

/** The command, given the root of the tree (cli/main.ts), which it is part of. */
export const completionOf = (root: () => CommandDef) =>
  defineCommand({
    meta: { name: "pm completion", description: "Print a shell completion script: bash, zsh or fish" },
    args: { shell: { type: "positional", valueHint: "bash|zsh|fish", description: "The shell", required: true } },
    async run({ args }) {
      const make = SHELLS[args.shell as keyof typeof SHELLS];
      if (!Object.hasOwn(SHELLS, args.shell)) throw new UsageError(`the shell must be bash, zsh or fish (got '${args.shell}')`);
      process.stdout.write(make(await walk(root())));
    },
  });
