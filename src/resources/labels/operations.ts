// The label operations, one function each, called alike by the REST routes and the MCP tools. A change or delete is one
// statement that authenticates and authorizes itself and says why it wrote nothing (guardedWrite); a name another label
// of the workspace has (in any case) is the unique index's 409.
import { and, eq, type SQL, sql } from "drizzle-orm";
import { labels, workspaces } from "../../../drizzle/schema";
import type { Caller } from "../../auth/caller";
import { LABEL_EDIT_REFUSAL, mayEditLabel } from "../../auth/ownership";
import { forbidden } from "../../core/errors";
import { newId } from "../../ids";
import { foldName, nameMatch } from "../../records/names";
import { guardedDelete, guardedWrite, type Target, updatedRow } from "../../store/guarded";
import type { FieldSelection, ListParams } from "../../store/list";
import { listRecords, readRecord } from "../../store/reads";
import { type LabelCreateInput, type LabelDto, type LabelUpdateInput, labelRecord } from "./record";

/** The Label answer of the label `id`, read in the statement that wrote it (its CTE `labels` shadows the table). */
const written = (id: SQL): SQL<LabelDto | null> => sql`(select ${labelRecord.json()} from ${labelRecord.from} where ${labels.id} = ${id})`;

/** Colours are stored as `#RRGGBB` in upper case, whatever case the body used. */
const normalized = <T extends { color?: string }>(input: T): T => (input.color ? { ...input, color: input.color.toUpperCase() } : input);

/** The label `id` in the caller's workspace; changing or deleting it needs its creator or a workspace ADMIN/OWNER. */
function labelTarget(caller: Caller, id: string): Target {
  const { actor } = caller;
  return {
    from: sql`${labels}`,
    where: and(eq(labels.workspaceId, actor.workspace), nameMatch("label", labels.id, id, actor.workspace))!,
    columns: { id: labels.id },
    guards: [{ holds: mayEditLabel(actor)!, refusal: () => forbidden(LABEL_EDIT_REFUSAL) }],
    name: "Label",
    team: null,
    table: labels,
  };
}

/** POST /labels: any member of the workspace creates one; its creator may later change or delete it. */
export async function createLabel(caller: Caller, input: LabelCreateInput): Promise<LabelDto> {
  const { actor } = caller;
  const { name, color } = normalized(input);
  const id = newId("label");
  const workspace: Target = {
    from: sql`${workspaces}`,
    where: eq(workspaces.id, actor.workspace),
    columns: { id: workspaces.id },
    guards: [],
    name: "Workspace",
    team: null,
  };
  return guardedWrite(caller, workspace, (allowed) => ({
    ctes: [
      sql`labels as (insert into ${labels} (id, workspace_id, creator_id, name, name_key, color)
        select ${id}, ${allowed}, ${actor.user}, ${name}, ${foldName(name)}, ${color} where ${allowed} is not null returning *)`,
    ],
    result: written(sql`${id}`),
  }));
}

/** PATCH /labels/{id}: rename or recolour (partial). */
export function updateLabel(caller: Caller, id: string, input: LabelUpdateInput): Promise<LabelDto> {
  const changes: Record<string, unknown> = normalized(input);
  const stored = Object.fromEntries(
    labelRecord.storedFields().flatMap((name) => (changes[name] === undefined ? [] : [[name, changes[name]]])),
  );
  if (typeof stored.name === "string") stored.nameKey = foldName(stored.name);
  return guardedWrite(caller, labelTarget(caller, id), (allowed) => ({
    ctes: [updatedRow(caller, "labels", labels, stored, allowed)],
    result: written(sql`(select id from labels)`),
  }));
}

/** DELETE /labels/{id}: the tasks and projects that carried it stay; only their label rows go (their foreign keys cascade). */
export async function deleteLabel(caller: Caller, id: string): Promise<void> {
  await guardedDelete(caller, labelTarget(caller, id), labels);
}

/** GET /labels/{id}: every member reads it. */
export function getLabel(caller: Caller, id: string, fields: FieldSelection | null = null): Promise<LabelDto> {
  return readRecord(caller, labelRecord, id, fields);
}

/** GET /labels: one page in one query. */
export function listLabels(caller: Caller, params: ListParams): Promise<LabelDto[]> {
  return listRecords(caller, labelRecord, params);
}
