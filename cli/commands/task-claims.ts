// `pm tasks claim ENG-12` (take the task, or renew one's claim), `pm tasks claim --filter eq:status=TODO --filter
// eq:teamId=ENG` (the first free task a filter matches: a work queue shared by several workers) and `pm tasks release
// ENG-12` (docs/agents.md, "Claims").
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { UsageError } from "../errors";
import { filterSortJson, listArgs, listQuery } from "../list";
import { printJson } from "../output";
import { openSession, unwrap, unwrapEmpty } from "../session";

const claimArgs = {
  ref: {
    type: "positional",
    required: false,
    valueHint: "ref",
    description: "Task reference (ENG-12, any case) or id; without it, the first free task --filter matches",
  },
  filter: listArgs.filter,
  sort: listArgs.sort,
  lease: { type: "string", valueHint: "seconds", description: "How long the claim holds the task: 30..3600 (default 900)" },
  ...commonArgs,
} as const;

async function printClaimed(json: boolean | undefined, answer: Schemas["ClaimedTask"]): Promise<void> {
  if (json) return printJson(answer);
  console.log(`claimed ${answer.task.reference} ${answer.task.title} (until ${answer.claim.expiresAt})`);
}

export const claim = defineCommand({
  meta: { name: "pm tasks claim", description: "Claim a task for a lease (renews your own), or the first free one --filter matches" },
  args: claimArgs,
  async run({ args, rawArgs }) {
    if (args.lease !== undefined && !/^\d+$/.test(args.lease)) throw new UsageError(`--lease must be whole seconds (got '${args.lease}')`);
    const leaseSeconds = args.lease === undefined ? undefined : Number(args.lease);
    const { client } = openSession(args);
    const query = listQuery({}, rawArgs, claimArgs);
    if (args.ref) {
      if (Object.keys(query).some((param) => param.startsWith("filter[") || param.startsWith("sort[")))
        throw new UsageError("give a task or --filter/--sort, not both");
      const path = { id: args.ref };
      return printClaimed(args.json, await unwrap(client.POST("/tasks/{id}/claim", { params: { path }, body: { leaseSeconds } })));
    }
    const { data, error, response } = await client.POST("/tasks/claim", { body: { ...filterSortJson(query), leaseSeconds } });
    if (response.status !== 204) return printClaimed(args.json, await unwrap(Promise.resolve({ data, error, response })));
    // Nothing free is no failure: a worker's loop ends here.
    if (args.json) return printJson({ task: null, claim: null });
    console.error("nothing to claim: no free task matches");
  },
});

export const release = defineCommand({
  meta: { name: "pm tasks release", description: "Release your claim of a task (a workspace ADMIN may release anyone's)" },
  args: {
    ref: { type: "positional", required: true, valueHint: "ref", description: "Task reference (ENG-12, any case) or id" },
    ...commonArgs,
  },
  async run({ args }) {
    const { client } = openSession(args);
    await unwrapEmpty(client.DELETE("/tasks/{id}/claim", { params: { path: { id: args.ref } } }));
    if (args.json) return printJson({ released: args.ref });
    console.log(`released ${args.ref}`);
  },
});
