import { eq, sql } from "drizzle-orm";
import { fieldDefinitions } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import { conflict, invalid, notFound } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import { newId } from "../../ids";
import { options, RECORD_TYPES, type RecordType, recordsUsing, removeValues } from "../../records/custom-fields";
import { fieldForChange, requireFieldAdmin } from "./access";
import { mine, serializeField } from "./queries";
import { type FieldCreateInput, type FieldUpdateInput, optionsProblem } from "./schema";

export async function createField(db: Db, principal: Principal, input: FieldCreateInput) {
  requireFieldAdmin(principal);
  const [row] = await db
    .insert(fieldDefinitions)
    .values({
      id: newId("fdef"),
      workspaceId: principal.workspace.id,
      key: input.key,
      name: input.name,
      description: input.description ?? null,
      type: input.type,
      recordTypes: input.recordTypes,
      metadata: input.metadata ?? {},
      presentation: input.presentation ?? null,
    })
    .returning();
  return serializeField(row);
}

type FieldRow = typeof fieldDefinitions.$inferSelect;

/** An option still held by a record cannot be removed (409): the values would no longer be valid. */
async function refuseRemovingUsedOptions(tx: Executor, current: FieldRow, kept: string[], recordTypes: RecordType[]) {
  const removed = options(current).filter((o) => !kept.includes(o));
  const records = await recordsUsing(tx, current.workspaceId, current.key, removed, recordTypes);
  if (records > 0) {
    throw conflict(`${records} record(s) still hold an option being removed; change their values first`, { options: removed, records });
  }
}

/**
 * Changes name, description, presentation, options and record types (one transaction). Dropping a record type
 * removes the field's values from records of that type; removing an option that records hold is 409.
 */
export async function updateField(db: Db, principal: Principal, id: string, input: FieldUpdateInput) {
  return db.transaction(async (tx) => {
    const current = await fieldForChange(tx, principal, id);
    if (Object.keys(input).length === 0) return serializeField(current);
    const recordTypes = input.recordTypes ?? (current.recordTypes as RecordType[]);
    const dropped = (current.recordTypes as RecordType[]).filter((t) => !recordTypes.includes(t));
    if (input.metadata) {
      const problem = optionsProblem(current.type, input.metadata);
      if (problem) throw invalid("metadata.options", problem);
      await refuseRemovingUsedOptions(tx, current, input.metadata.options ?? [], recordTypes);
    }
    const [row] = await tx
      .update(fieldDefinitions)
      .set({ ...input, updatedAt: sql`now()` })
      .where(eq(fieldDefinitions.id, current.id))
      .returning();
    await removeValues(tx, current.workspaceId, current.key, dropped);
    return serializeField(row);
  });
}

/**
 * Deletes the definition and its values on every task, project and milestone of the workspace, in one
 * transaction. The delete waits for writes that share-locked the definition; the removal, a later statement, sees them.
 */
export async function deleteField(db: Db, principal: Principal, id: string) {
  requireFieldAdmin(principal);
  await db.transaction(async (tx) => {
    const [gone] = await tx.delete(fieldDefinitions).where(mine(principal.workspace.id, id)).returning({ key: fieldDefinitions.key });
    if (!gone) throw notFound("Field");
    await removeValues(tx, principal.workspace.id, gone.key, RECORD_TYPES);
  });
}
