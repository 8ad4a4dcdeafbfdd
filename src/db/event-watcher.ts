// GET /events?wait= and GET /notifications?wait= (docs/events.md, "Waiting for the next event"): the waiting reads of one Worker isolate share one
// watcher. While anyone waits it runs one statement at a time, at most one a second whatever the number of waiters
// (pm_watch_events: the newest readable position of every workspace waited on, answered as soon as one moves or after
// a second). Waiters whose workspace moved wake and run their own read once; nobody else touches the database.
import { sql } from "drizzle-orm";
import { ValidationError } from "../core/errors";
import { type Executor, QUERY_TIMEOUT_MS } from "./client";

/** At most one statement this often; also how long the database holds one before answering that nothing moved. */
export const WATCH_PERIOD_MS = 1000;
/** A poll still unanswered this long after it began is given up on: its request may be gone, another waiter polls. */
const STALL_MS = WATCH_PERIOD_MS + QUERY_TIMEOUT_MS;

interface Waiter {
  workspace: string;
  /** The newest position this waiter's last read saw (null: the workspace had none). */
  seen: number | null;
  wake(): void;
}

/** Keeps a request alive for work it started that others wait on (the Worker's `waitUntil`). */
export type KeepAlive = (work: Promise<unknown>) => void;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

class EventWatcher {
  readonly #waiters = new Set<Waiter>();
  #poll: { startedAt: number; done: Promise<void> } | undefined;
  #lastStart = Number.NEGATIVE_INFINITY;
  /** Statements run since the isolate started (the test that counts them reads it). */
  statements = 0;

  /**
   * Resolves true once `workspace` has an event past `seen`, false at `deadline` (ms since the epoch). `db` runs the
   * poll when this waiter is the one to start it; `keepAlive` lets its request answer on time while the poll finishes.
   */
  async wait(db: Executor, workspace: string, seen: number | null, deadline: number, keepAlive?: KeepAlive): Promise<boolean> {
    let woken = false;
    let wake = () => {};
    const moved = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const waiter: Waiter = {
      workspace,
      seen,
      wake: () => {
        woken = true;
        wake();
      },
    };
    this.#waiters.add(waiter);
    const timeUp = sleep(deadline - Date.now());
    try {
      while (!woken && Date.now() < deadline) await Promise.race([moved, timeUp, this.#next(db, deadline, keepAlive)]);
      return woken;
    } finally {
      this.#waiters.delete(waiter);
    }
  }

  /** The poll under way, or a new one started by this caller, a second after the last began. */
  #next(db: Executor, deadline: number, keepAlive?: KeepAlive): Promise<void> {
    const now = Date.now();
    if (this.#poll && now - this.#poll.startedAt < STALL_MS) return this.#poll.done;
    const startAt = Math.max(now, this.#lastStart + WATCH_PERIOD_MS);
    // Without a way to outlive its answer, a request polls only for as long as it waits itself.
    const length = keepAlive ? WATCH_PERIOD_MS : Math.min(WATCH_PERIOD_MS, deadline - startAt);
    if (length <= 0) return sleep(deadline - now);
    this.#lastStart = startAt;
    const poll = { startedAt: startAt, done: Promise.resolve() };
    poll.done = sleep(startAt - now)
      .then(() => this.#run(db, length))
      .finally(() => {
        if (this.#poll === poll) this.#poll = undefined;
      });
    this.#poll = poll;
    keepAlive?.(poll.done.catch(() => {}));
    return poll.done;
  }

  /** One statement: the workspaces that moved past their waiters' oldest `seen`; their waiters past it wake. */
  async #run(db: Executor, waitMs: number): Promise<void> {
    const oldest = new Map<string, number | null>();
    for (const { workspace, seen } of this.#waiters) {
      const known = oldest.get(workspace);
      if (!oldest.has(workspace) || (known !== null && known !== undefined && (seen === null || seen < known))) oldest.set(workspace, seen);
    }
    if (oldest.size === 0) return;
    this.statements++;
    const watched = JSON.stringify([...oldest].map(([id, seen]) => ({ id, seen })));
    const { rows } = await db.execute<{ workspace_id: string; latest: string | number }>(
      sql`select workspace_id, latest from pm_watch_events(${watched}::jsonb, ${Math.round(waitMs)})`,
    );
    const latest = new Map(rows.map((row) => [row.workspace_id, Number(row.latest)]));
    for (const waiter of this.#waiters) {
      const position = latest.get(waiter.workspace);
      if (position !== undefined && (waiter.seen === null || position > waiter.seen)) waiter.wake();
    }
  }
}

/** The isolate's one watcher. */
export const eventWatcher = new EventWatcher();

export const MAX_WAIT_SECONDS = 30;
const WAIT_MESSAGE = `wait must be a whole number of seconds between 1 and ${MAX_WAIT_SECONDS}`;

/** `wait=` seconds, 1..30 (422 at `wait` otherwise, as `limit` is); absent: answer at once. */
export function parseWait(raw: string | null): number | undefined {
  if (raw === null) return undefined;
  const seconds = /^\d{1,3}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!(seconds >= 1 && seconds <= MAX_WAIT_SECONDS)) throw new ValidationError({ wait: [WAIT_MESSAGE] });
  return seconds;
}
