// What a command reads besides its arguments: text from standard input (`-`) or a file, a description written in
// $EDITOR, a yes/no question. Only on a terminal does `pm` ask anything: a question it cannot ask fails (exit 1)
// and says which option answers it, so a script never hangs on a prompt.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline/promises";
import { text } from "node:stream/consumers";
import { UsageError } from "./errors";

/** Whether a person is at the keyboard: standard input and error (where questions go) are a terminal. */
export const onTerminal = () => Boolean(process.stdin.isTTY && process.stderr.isTTY);

/** A question `pm` would ask a person but cannot: exit 1, with the option that answers it. */
export class CannotAskError extends Error {}

let stdinTaken = false;

/** `value`, or with `-` standard input (read once: one option may take it), less the final line break a file ends with. */
export async function textOrStdin(option: string, value: string): Promise<string> {
  if (value !== "-") return value;
  if (stdinTaken) throw new UsageError(`only one option can read standard input (--${option} -)`);
  stdinTaken = true;
  return (await text(process.stdin)).replace(/\r?\n$/, "");
}

/** The text of `--body-file FILE` (`-`: standard input). */
export async function fileText(file: string): Promise<string> {
  if (file === "-") return textOrStdin("body-file", "-");
  try {
    return readFileSync(file, "utf8").replace(/\r?\n$/, "");
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** Text written by the person in $VISUAL or $EDITOR (default vi), starting from `initial`. */
export function editText(initial: string, why: string): string {
  if (!onTerminal()) throw new CannotAskError(`no terminal to open an editor on for ${why}: give --description or --body-file`);
  const dir = mkdtempSync(path.join(tmpdir(), "pm-"));
  const file = path.join(dir, "description.md");
  try {
    writeFileSync(file, initial);
    const editor = process.env.VISUAL || process.env.EDITOR || "vi";
    // Through the shell, as git runs it: EDITOR may carry arguments (`code --wait`).
    const run = spawnSync("sh", ["-c", `${editor} "$1"`, "sh", file], { stdio: "inherit" });
    if (run.status !== 0) throw new CannotAskError(`the editor (${editor}) exited with ${run.status ?? run.signal}: nothing was changed`);
    return readFileSync(file, "utf8").replace(/\r?\n$/, "");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Asks a yes/no question on the terminal (no answer: no); off a terminal fails, naming `--yes`. */
export async function confirm(question: string): Promise<boolean> {
  if (!onTerminal()) throw new CannotAskError(`no terminal to ask "${question}" on: add --yes to go ahead`);
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}
