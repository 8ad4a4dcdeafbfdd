// `pm tasks link ENG-1 --blocks ENG-2` (or --blocked-by, --duplicate-of, --related) and `pm tasks unlink` with the same
// options: task relations (docs/api.md, "Task relations"). Exactly one relation option per call.
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { ApiError, UsageError } from "../errors";
import { printJson, printRecord } from "../output";
import { openSession, type Session, unwrap } from "../session";

type RelationType = Schemas["TaskRelationType"];
type Relation = Schemas["TaskRelation"];

const OPTIONS = { blocks: "blocks", blockedBy: "blocked_by", duplicateOf: "duplicate_of", related: "related" } as const;
const relationArgs = {
  ref: { type: "positional", description: "Task reference (ENG-12, any case) or id", valueHint: "ref", required: true },
  blocks: { type: "string", valueHint: "ENG-2", description: "This task blocks that one" },
  blockedBy: { type: "string", valueHint: "ENG-2", description: "This task is blocked by that one" },
  duplicateOf: {
    type: "string",
    valueHint: "ENG-2",
    description: "This task duplicates that one (it moves to a canceled state unless completed)",
  },
  related: { type: "string", valueHint: "ENG-2", description: "The two tasks are related" },
  ...commonArgs,
} as const;
type RelationOptions = { [K in keyof typeof OPTIONS]?: string };

/** The one relation the options name: its type and the other task. */
function named(args: RelationOptions): { type: RelationType; other: string } {
  const given = (Object.keys(OPTIONS) as Array<keyof typeof OPTIONS>).filter((name) => args[name] !== undefined);
  if (given.length !== 1) throw new UsageError("give exactly one of --blocks, --blocked-by, --duplicate-of, --related");
  return { type: OPTIONS[given[0]], other: args[given[0]] as string };
}

const printRelation = (ref: string, relation: Relation) =>
  printRecord([
    ["relation", `${ref.toUpperCase()} ${relation.type.replace("_", " ")} ${relation.task.reference}`],
    ["status", relation.task.status],
    ["title", relation.task.title],
    ["id", relation.id],
  ]);

/** Every relation of the task, as it sees them. */
async function relationsOf({ client }: Session, ref: string): Promise<Schemas["TaskRelationSelection"][]> {
  const relations: Schemas["TaskRelationSelection"][] = [];
  let cursor: string | undefined;
  do {
    const query = { limit: 250, ...(cursor ? { cursor } : {}) };
    const page = await unwrap(client.GET("/tasks/{id}/relations", { params: { path: { id: ref }, query } }));
    relations.push(...page.relations);
    cursor = page.pagination.nextCursor ?? undefined;
  } while (cursor);
  return relations;
}

export const link = defineCommand({
  meta: { name: "pm tasks link", description: "Relate a task to another: --blocks, --blocked-by, --duplicate-of or --related" },
  args: relationArgs,
  async run({ args }) {
    const { type, other } = named(args);
    const { client } = openSession(args);
    const answer = await unwrap(
      client.POST("/tasks/{id}/relations", { params: { path: { id: args.ref } }, body: { type, taskId: other } }),
    );
    if (args.json) return printJson(answer);
    printRelation(args.ref, answer.relation);
  },
});

export const unlink = defineCommand({
  meta: { name: "pm tasks unlink", description: "Remove a relation, named as `pm tasks link` made it" },
  args: relationArgs,
  async run({ args }) {
    const { type, other } = named(args);
    const session = openSession(args);
    // `duplicate_of` seen from the task that is duplicated is `duplicated_by`; each side reads its own type.
    const found = (await relationsOf(session, args.ref)).find(
      (r) => r.type === type && (r.task?.reference?.toUpperCase() === other.toUpperCase() || r.task?.id === other),
    );
    if (!found?.id) throw new UsageError(`${args.ref} has no relation ${type} ${other}`);
    // 204 and no body: nothing for `unwrap` to return.
    const { response, error } = await session.client.DELETE("/tasks/{id}/relations/{relationId}", {
      params: { path: { id: args.ref, relationId: found.id } },
    });
    if (!response.ok) throw ApiError.fromBody(response.status, error);
    if (args.json) return printJson({ deleted: found });
    console.log(`Removed: ${args.ref.toUpperCase()} ${type.replace("_", " ")} ${other.toUpperCase()}`);
  },
});
