// The custom field definition operations, one function each. Definitions shape every record of the workspace: only its
// ADMINs and OWNERs change them (403); every member reads them. Creating is one statement that authorizes itself;
// changing or deleting one is a transaction that locks it, since values written meanwhile must be seen.
import { and, eq, type SQL, sql } from "drizzle-orm";
import { fieldDefinitions, workspaceMembers } from "../../../drizzle/schema";
import type { Caller } from "../../auth/caller";
import { workspaceAdminSql } from "../../auth/roles";
import { conflict, forbidden, invalid } from "../../core/errors";
import type { Executor } from "../../db/client";
import { newId } from "../../ids";
import { type FieldType, options, RECORD_TYPES, type RecordType, recordsUsing, removeValues } from "../../records/custom-fields";
import { type FieldCreateInput, type FieldDto, type FieldUpdateInput, fieldRecord, optionsProblem } from "../../records/fields";
import { insertColumns } from "../../store/field-map";
import { guardedWrite, readTarget, type Target } from "../../store/guarded";
import type { ListParams } from "../../store/list";
import { listRecords, readRecord } from "../../store/reads";

const adminOnly = (caller: Caller) => ({
  holds: workspaceAdminSql(caller.actor.role),
  refusal: () => forbidden("Only a workspace ADMIN or higher may change custom fields"),
});

/** The caller's own membership: what a create acts in (its workspace), with the rule. */
const workspaceTarget = (caller: Caller): Target => ({
  from: sql`${workspaceMembers}`,
  where: and(eq(workspaceMembers.workspaceId, caller.actor.workspace), eq(workspaceMembers.userId, caller.actor.user))!,
  columns: { id: workspaceMembers.workspaceId },
  guards: [adminOnly(caller)],
  name: "Workspace",
  team: null,
});

/** The definition `id` of the caller's workspace, with the rule. */
const fieldTarget = (caller: Caller, id: string): Target => ({
  from: sql`${fieldDefinitions}`,
  where: and(eq(fieldDefinitions.workspaceId, caller.actor.workspace), eq(fieldDefinitions.id, id))!,
  columns: {
    id: fieldDefinitions.id,
    key: fieldDefinitions.key,
    type: fieldDefinitions.type,
    metadata: fieldDefinitions.metadata,
    recordTypes: fieldDefinitions.recordTypes,
    workspaceId: fieldDefinitions.workspaceId,
  },
  guards: [adminOnly(caller)],
  name: "Field",
  team: null,
  table: fieldDefinitions,
});
type FieldRow = {
  id: string;
  key: string;
  type: string;
  metadata: Record<string, unknown>;
  recordTypes: RecordType[];
  workspaceId: string;
};

/** The Field answer of the definition `id` (read in the statement or transaction that wrote it). */
const answer = (id: SQL) =>
  sql<FieldDto | null>`(select ${fieldRecord.json()} from ${fieldRecord.from} where ${fieldDefinitions.id} = ${id})`;
async function read(tx: Executor, id: string): Promise<FieldDto> {
  const [row] = await tx.select({ field: fieldRecord.json() }).from(fieldRecord.from).where(eq(fieldDefinitions.id, id));
  return row.field;
}

/** POST /fields: `key` unique in the workspace (409). */
export function createField(caller: Caller, input: FieldCreateInput): Promise<FieldDto> {
  const id = newId("fdef");
  const insert = insertColumns(fieldDefinitions, {
    id,
    key: input.key,
    name: input.name,
    description: input.description ?? null,
    type: input.type,
    recordTypes: input.recordTypes,
    metadata: input.metadata ?? {},
    presentation: input.presentation ?? null,
  });
  return guardedWrite(caller, workspaceTarget(caller), (allowed) => ({
    ctes: [
      sql`field_definitions as (insert into ${fieldDefinitions} (workspace_id, ${insert.names})
        select ${allowed}, ${insert.values} where ${allowed} is not null returning *)`,
    ],
    result: answer(sql`${id}`),
  }));
}

/** An option still held by a record cannot be removed (409): the values would no longer be valid. */
async function refuseRemovingUsedOptions(tx: Executor, current: FieldRow, kept: string[], recordTypes: RecordType[]) {
  const removed = options(current).filter((o) => !kept.includes(o));
  const records = await recordsUsing(tx, current.workspaceId, current.key, removed, recordTypes);
  if (records > 0) {
    throw conflict(`${records} record(s) still hold an option being removed; change their values first`, { options: removed, records });
  }
}

/**
 * PATCH /fields/{id}: name, description, presentation, options and record types, in one transaction. Dropping a record
 * type removes the field's values from records of that type; removing an option that records hold is 409. The definition
 * is locked first: writes of values share-lock the definitions they check, so the change waits for them and sees them.
 */
export function updateField(caller: Caller, id: string, input: FieldUpdateInput): Promise<FieldDto> {
  // Interactive (the WebSocket): the definition is read (locked) and decides what changes.
  return caller.transaction(async (tx) => {
    const current = await readTarget<FieldRow>(tx, caller, fieldTarget(caller, id), "update");
    if (Object.keys(input).length === 0) return read(tx, current.id);
    const recordTypes = input.recordTypes ?? current.recordTypes;
    const dropped = current.recordTypes.filter((t) => !recordTypes.includes(t));
    if (input.metadata) {
      const problem = optionsProblem(current.type as FieldType, input.metadata);
      if (problem) throw invalid("metadata.options", problem);
      await refuseRemovingUsedOptions(tx, current, input.metadata.options ?? [], recordTypes);
    }
    await tx
      .update(fieldDefinitions)
      .set({ ...input, updatedAt: sql`now()` })
      .where(eq(fieldDefinitions.id, current.id));
    await removeValues(tx, current.workspaceId, current.key, dropped);
    return read(tx, current.id);
  });
}

/** DELETE /fields/{id}: the definition and its values on every task, project and milestone, in one transaction. */
export function deleteField(caller: Caller, id: string): Promise<void> {
  // Interactive (the WebSocket): the definition is read (locked) and names the values to remove.
  return caller.transaction(async (tx) => {
    const current = await readTarget<FieldRow>(tx, caller, fieldTarget(caller, id), "update");
    await tx.delete(fieldDefinitions).where(eq(fieldDefinitions.id, current.id));
    await removeValues(tx, current.workspaceId, current.key, RECORD_TYPES);
  });
}

/** GET /fields/{id}: one statement that authenticates itself. */
export function getField(caller: Caller, id: string): Promise<FieldDto> {
  return readRecord(caller, fieldRecord, id);
}

/** GET /fields (the custom part): one page (limit + 1 rows) of the workspace's definitions. */
export function listFields(caller: Caller, params: ListParams): Promise<FieldDto[]> {
  return listRecords(caller, fieldRecord, params);
}
