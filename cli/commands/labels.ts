// `pm labels list`, and labels by name where a command takes them (`pm tasks create --label bug`).
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { UsageError } from "../errors";
import { listArgs, listQuery, printList } from "../list";
import { printJson } from "../output";
import { openSession, type Session, unwrap } from "../session";

/** The API's largest page: a workspace's labels are few, so this is one request. */
const PAGE = 250;
const LABEL_ID = /^label_[0-9a-z]{26}$/;

/** Every label of the workspace, id and name, page after page. */
async function allLabels({ client }: Session): Promise<{ id: string; name: string }[]> {
  const found: { id: string; name: string }[] = [];
  let cursor: string | undefined;
  do {
    const query = { fields: "id,name", limit: PAGE, ...(cursor ? { cursor } : {}) };
    const page = await unwrap(client.GET("/labels", { params: { query } }));
    for (const { id, name } of page.labels) if (id !== undefined && name !== undefined) found.push({ id, name });
    cursor = page.pagination.nextCursor ?? undefined;
  } while (cursor);
  return found;
}

/**
 * The ids of labels given by name, in any case (names are unique in a workspace whatever their case), or by id. The
 * API's `eq` filter compares exactly, so the names are matched here, against the whole list, which is also what an
 * unknown name's usage error shows.
 */
export async function resolveLabelIds(session: Session, given: string[]): Promise<string[]> {
  const labels = await allLabels(session);
  const byName = new Map(labels.map((label) => [label.name.toLowerCase(), label.id]));
  const ids = new Set(labels.map((label) => label.id));
  return given.map((value) => {
    const id = byName.get(value.toLowerCase()) ?? (LABEL_ID.test(value) && ids.has(value) ? value : undefined);
    if (id) return id;
    const names = labels.map((label) => label.name).sort((a, b) => a.localeCompare(b));
    const known = names.length ? `labels: ${names.join(", ")}` : "the workspace has no labels yet";
    throw new UsageError(`no label '${value}' (${known})`);
  });
}

const args = { ...listArgs, ...commonArgs } as const;

const list = defineCommand({
  meta: { name: "pm labels list", description: "List the workspace's labels" },
  args,
  async run({ args: given, rawArgs }) {
    const query = listQuery(given, rawArgs, args);
    const { client } = openSession(given);
    await printList(given, (q) => unwrap(client.GET("/labels", { params: { query: q } })), query, "labels", [
      { header: "NAME", value: (l: Schemas["LabelSelection"]) => l.name },
      { header: "COLOR", value: (l: Schemas["LabelSelection"]) => l.color },
    ]);
  },
});

const create = defineCommand({
  meta: { name: "pm labels create", description: "Create a label (any member may)" },
  args: {
    name: { type: "positional", description: "The label's name (unique in the workspace, any case)", required: true },
    color: { type: "string", valueHint: "#RRGGBB", description: "Its colour", required: true },
    ...commonArgs,
  },
  async run({ args }) {
    const { client } = openSession(args);
    const answer = await unwrap(client.POST("/labels", { body: { name: args.name, color: args.color } }));
    if (args.json) return printJson(answer);
    console.log(`created the label ${answer.label.name} (${answer.label.color})`);
  },
});

export const labels = defineCommand({
  meta: { name: "pm labels", description: "Labels" },
  subCommands: { list, create },
});
