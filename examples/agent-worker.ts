// An agent's worker, to copy (docs/agents.md, "The example worker"): it waits for sessions of its agent (a task delegated
// to it, or a person's prompt), claims the session's task so that no other worker takes it, posts a thought and an
// action, answers with a response (the session is then `complete`) and releases the task. Written with the typed client
// generated from the OpenAPI document (client/, docs/clients.md), so every path, parameter and body below is checked.
//
//   PM_BASE_URL=http://127.0.0.1:8787 PM_API_KEY=<the agent's key> npx tsx examples/agent-worker.ts [--once]
//
// The agent needs `tasks:write` (the default for a new agent's key) and team role MEMBER in the tasks' teams (a claim is
// a write of the task). A real agent would do its work where this one counts words; the rest stays as it is.
import { pathToFileURL } from "node:url";
import { createPmClient, type PmClient, type Schemas } from "../client";

type Session = Schemas["AgentSessionSelection"];

export interface WorkerOptions {
  baseUrl: string;
  /** The agent's API key (an OAuth token or JWT works as `token` of createPmClient too). */
  apiKey: string;
  /** Stop after the first round that found work (else wait for more, forever). */
  once?: boolean;
  /** How long to wait between two looks when nothing is pending. */
  pollMs?: number;
  /** How long a claim lasts unless released (30..3600 s): past it, another worker may take the task. */
  leaseSeconds?: number;
  log?: (line: string) => void;
}

/** The answer's data, or an Error that says what the API said. */
async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw new Error(`${response.status} ${JSON.stringify(error)}`);
  return data;
}

/** Appends an activity to the session (only its agent may post these kinds). */
function post(api: PmClient, session: string, body: Schemas["AgentActivityCreate"]) {
  return ok(api.POST("/agent-sessions/{id}/activities", { params: { path: { id: session } }, body }));
}

/** What a person asked last, if anything: the newest prompt among the session's activities. */
async function lastPrompt(api: PmClient, session: string): Promise<string | undefined> {
  const { activities } = await ok(
    api.GET("/agent-sessions/{id}/activities", { params: { path: { id: session }, query: { "filter[eq][type]": "prompt", limit: 250 } } }),
  );
  return activities.at(-1)?.body;
}

/**
 * One session's work. Returns false when another worker holds the task (its claim answers 409 naming the holder): that
 * worker answers the session.
 */
async function work(api: PmClient, session: Session, leaseSeconds: number, log: (line: string) => void): Promise<boolean> {
  const id = session.id as string;
  const taskId = session.taskId as string;
  const claim = await api.POST("/tasks/{id}/claim", { params: { path: { id: taskId } }, body: { leaseSeconds } });
  if (claim.response.status === 409) {
    log(`${taskId}: held by another worker`);
    return false;
  }
  const { task } = await ok(Promise.resolve(claim));
  log(`${task.reference}: claimed for session ${id}`);
  try {
    const prompt = await lastPrompt(api, id);
    await post(api, id, {
      type: "thought",
      body: prompt ? `Reading ${task.reference} again: you asked “${prompt}”.` : `Reading ${task.reference}: **${task.title}**.`,
    });
    // The work itself: here, counting the description's words.
    const words = task.description.split(/\s+/).filter(Boolean).length;
    await post(api, id, {
      type: "action",
      body: "Counted the description's words.",
      action: { name: "count_words", parameter: task.reference, result: String(words) },
    });
    await post(api, id, { type: "response", body: `${task.reference} has ${words} words of description. Done.` });
    log(`${task.reference}: answered`);
  } catch (err) {
    // The session says what went wrong (its state becomes `error`), then the error goes on up.
    await post(api, id, { type: "error", body: `The worker failed: ${(err as Error).message}` }).catch(() => {});
    throw err;
  } finally {
    await api.DELETE("/tasks/{id}/claim", { params: { path: { id: taskId } } });
  }
  return true;
}

/** Waits for its agent's pending sessions and works them, oldest first; returns how many it answered (with `once`). */
export async function runWorker({ baseUrl, apiKey, once = false, pollMs = 1_000, leaseSeconds = 300, log = console.log }: WorkerOptions) {
  const api = createPmClient({ baseUrl, apiKey });
  let answered = 0;
  for (;;) {
    // An agent sees its own sessions only; `pending`: a new delegation, or a person's prompt the agent has not answered.
    const { sessions } = await ok(
      api.GET("/agent-sessions", { params: { query: { "filter[in][state]": ["pending", "stale"], "sort[createdAt]": "asc", limit: 50 } } }),
    );
    for (const session of sessions) if (await work(api, session, leaseSeconds, log)) answered++;
    if (once && sessions.length > 0) return answered;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

// Run as a script (not when imported).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { PM_BASE_URL = "http://127.0.0.1:8787", PM_API_KEY } = process.env;
  if (!PM_API_KEY) throw new Error("Set PM_API_KEY to the agent's key");
  await runWorker({ baseUrl: PM_BASE_URL, apiKey: PM_API_KEY, once: process.argv.includes("--once") });
}
