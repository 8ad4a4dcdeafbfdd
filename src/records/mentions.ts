// Mentions (docs/api.md, "Inbox"): `@handle` in a task's description or a comment's body, read from the Markdown with a real
// parser (marked's lexer: about 15 KB gzipped, no dependencies), so a handle inside a code span or block is text. The
// handles go to the database with the write (`pm.mentions`, keyed by the text's SHA-256), whose trigger (pm_notify)
// resolves them to members and writes the notifications in the write's transaction.
import { sql } from "drizzle-orm";
import { Lexer, type Token, walkTokens } from "marked";
import { sha256Hex } from "../core/crypto";
import type { Target } from "../store/guarded";

/** A handle: lower-case letters, digits and `-`, starting with a letter or digit, 1..39 characters. */
export const HANDLE_PATTERN = /^[a-z0-9][a-z0-9-]{0,38}$/;
// `@handle` at the start or after a character that is not a letter, digit or `.` (so `ann@example.com` is no mention).
const MENTION = /(?<![\p{L}\p{N}.])@([a-z0-9][a-z0-9-]{0,38})/giu;
/** More than this many different handles in one text: the rest are text (a bound on one write's fan-out). */
const MAX_MENTIONS = 100;

/** The handles `markdown` mentions outside code, lower-cased, each once, in order. */
export function mentionsOf(markdown: string): string[] {
  const found = new Set<string>();
  if (!markdown.includes("@")) return [];
  walkTokens(Lexer.lex(markdown, { gfm: true }), (token: Token) => {
    // Leaf text only (a text token with children is walked through them); code spans, blocks and raw HTML are skipped.
    if (token.type !== "text" || ("tokens" in token && token.tokens?.length)) return;
    for (const match of token.text.matchAll(MENTION)) if (found.size < MAX_MENTIONS) found.add(match[1].toLowerCase());
  });
  return [...found];
}

/** Who writes: its mention emails leave once the response is out (the outbox's relay), not at the cron's next run. */
export interface Mentioner {
  relayMailAfterResponse(): void;
}

/**
 * `target` with one more rule, which always holds and hands the texts' mentions to the write's triggers (the
 * transaction's `pm.mentions`): evaluated with the target's rules, before the write's CTEs run.
 */
export async function mentioning(writer: Mentioner, target: Target, texts: (string | undefined)[]): Promise<Target> {
  const handed: Record<string, string[]> = {};
  for (const text of texts) {
    const handles = text === undefined ? [] : mentionsOf(text);
    if (handles.length > 0) handed[await sha256Hex(text!)] = handles;
  }
  if (Object.keys(handed).length === 0) return target;
  writer.relayMailAfterResponse();
  const handing = {
    holds: sql`(select set_config('pm.mentions', ${JSON.stringify(handed)}, true) is not null)`,
    refusal: () => new Error("unreachable: handing mentions always holds"),
  };
  return { ...target, guards: [...target.guards, handing] };
}
