// The command line as citty reads it, checked strictly: citty lets unknown options through and keeps only the last
// of a repeated one, so the runner rejects unknown options and extra arguments (a usage error, exit 2) and
// repeatable options (`--filter`, `--label`) are read from the raw arguments here.
import type { ArgDef, ArgsDef } from "citty";
import { UsageError } from "./errors";

/** Options every command that calls the API takes. */
export const commonArgs = {
  json: { type: "boolean", valueHint: "fields", description: "Print the API's JSON; --json a,b: the records with only these fields" },
  jq: { type: "string", alias: "q", valueHint: "expr", description: "Filter the JSON with a jq expression (implies --json)" },
  workspace: { type: "string", valueHint: "slug", description: "Use your login to this workspace (see `pm workspaces`)" },
  "base-url": {
    type: "string",
    valueHint: "url",
    description: "The API (default: PM_BASE_URL, else the one you logged in to, else http://127.0.0.1:8787)",
  },
} as const satisfies ArgsDef;

interface Scanned {
  options: { name: string; value: string | true }[];
  positionals: string[];
  /** Where each positional is in the tokens. */
  positionalAt: number[];
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The definition an option token names: its name, camelCase or kebab-case spelling, or an alias. */
function definitionOf(raw: string, defs: ArgsDef): [string, ArgDef] | undefined {
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === "positional") continue;
    const aliases = "alias" in def && def.alias !== undefined ? [def.alias].flat() : [];
    if (kebab(raw) === kebab(name) || aliases.includes(raw)) return [name, def];
  }
  return undefined;
}

/** Every option (in order, repeats kept) and positional of `tokens`; unknown options and missing values throw. */
export function scan(tokens: string[], defs: ArgsDef): Scanned {
  const scanned: Scanned = { options: [], positionals: [], positionalAt: [] };
  const positional = (at: number) => {
    scanned.positionals.push(tokens[at]);
    scanned.positionalAt.push(at);
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token === "--") {
      for (let at = i + 1; at < tokens.length; at++) positional(at);
      break;
    }
    if (!token.startsWith("-") || token === "-") {
      positional(i);
      continue;
    }
    const [raw, inline] = splitOnce(token.replace(/^--?/, ""), "=");
    const negated = raw.startsWith("no-") ? definitionOf(raw.slice(3), defs) : undefined;
    if (negated?.[1].type === "boolean" && inline === undefined) {
      scanned.options.push({ name: negated[0], value: true });
      continue;
    }
    const found = definitionOf(raw, defs);
    if (!found) throw new UsageError(`unknown option ${token.split("=")[0]}`);
    const [name, def] = found;
    if (def.type === "boolean") {
      scanned.options.push({ name, value: true });
      continue;
    }
    const value = inline ?? tokens[++i];
    if (value === undefined || (inline === undefined && value.startsWith("--"))) throw new UsageError(`option --${name} needs a value`);
    scanned.options.push({ name, value });
  }
  return scanned;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** Throws a usage error for what citty would silently accept: unknown options, options without values, extra arguments. */
export function checkCommandLine(tokens: string[], defs: ArgsDef): void {
  const { positionals } = scan(tokens, defs);
  const expected = Object.values(defs).filter((def) => def.type === "positional").length;
  // A last positional whose hint ends in `...` takes every remaining argument (`pm tasks edit ENG-1 ENG-2 …`).
  const variadic = Object.values(defs).some((def) => def.type === "positional" && String(def.valueHint ?? "").endsWith("..."));
  if (positionals.length > expected && !variadic)
    throw new UsageError(`unexpected argument '${positionals[expected]}' (quote text that has spaces)`);
}

/** A `--json` value: field names (no dashes or underscores, so never a reference like ENG-1 or an id). */
const FIELD_LIST = /^[a-z][A-Za-z0-9]*(,[a-z][A-Za-z0-9]*)*$/;

/**
 * `--json [fields]` and `--jq expr` (`-q expr`) taken out of `tokens` for cli/output.ts: citty sees a plain `--json` flag
 * (`--jq` implies it). The word after `--json` is its fields when it is a field list and the command's arguments are
 * all there without it (`pm comment ENG-1 --json ok` comments "ok").
 */
export function takeJsonOptions(tokens: string[], defs: ArgsDef): { tokens: string[]; fields?: string[]; jq?: string } {
  if (!("json" in defs)) return { tokens };
  const end = tokens.includes("--") ? tokens.indexOf("--") : tokens.length;
  const kept: string[] = [];
  let fields: string[] | undefined;
  let jq: string | undefined;
  let json = false;
  const needed = Object.values(defs).filter((def) => def.type === "positional").length;
  for (let i = 0; i < end; i++) {
    const token = tokens[i];
    const [name, inline] = splitOnce(token, "=");
    if (name === "--json") {
      json = true;
      const next = inline ?? tokens[i + 1];
      const spare =
        inline !== undefined ||
        scan(
          tokens.filter((_, j) => j !== i + 1),
          defs,
        ).positionals.length >= needed;
      if (next !== undefined && FIELD_LIST.test(next) && spare) {
        fields = next.split(",");
        if (inline === undefined) i++;
      } else if (inline !== undefined) throw new UsageError(`--json takes field names separated by commas (got '${inline}')`);
    } else if (name === "--jq" || name === "-q") {
      jq = inline ?? tokens[++i];
      if (jq === undefined) throw new UsageError("option --jq needs a value");
    } else kept.push(token);
  }
  return { tokens: [...kept, ...(json || jq !== undefined ? ["--json"] : []), ...tokens.slice(end)], fields, jq };
}

/** All values given for a repeatable option, in order. */
export function repeated(tokens: string[], defs: ArgsDef, name: string): string[] {
  return scan(tokens, defs).options.flatMap((option) => (option.name === name && typeof option.value === "string" ? [option.value] : []));
}

/** A value that must be one of `allowed`, in any case; given back as the API spells it. */
export function oneOf<T extends string>(option: string, value: string, allowed: readonly T[]): T {
  const found = allowed.find((candidate) => candidate === value.toUpperCase());
  if (!found) throw new UsageError(`--${option} must be one of ${allowed.join(", ")} (got '${value}')`);
  return found;
}
