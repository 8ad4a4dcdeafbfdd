// The transfer's operations: an export, an import sent whole, and one sent in parts (opened, filled, committed). Each
// loads the caller's principal and runs its import in one transaction; the routes only parse, call and answer.
import type { Caller } from "../../auth/caller";
import type { Principal } from "../../auth/principal";
import type { ExportType } from "../../store/transfer-part";
import type { Transfer } from "./document";
import { exportDocument } from "./export";
import { importedTeam, importIntoTeam, importWorkspace } from "./import";
import type { Parts } from "./parts";
import type { Placed } from "./plan";
import type { ExportDocumentDto } from "./schema";
import { documentSource } from "./source";
import * as staged from "./staged";

/** GET /<type>s/{id}/export: the document's text or stream, and when its writing ended. */
export async function exportRecords(caller: Caller, parts: Parts, type: ExportType, idOrRef: string) {
  return exportDocument(caller.db, await caller.principal(), parts, type, idOrRef);
}

type Imported = Awaited<ReturnType<typeof importIntoTeam> | ReturnType<typeof importWorkspace>>;

/** A team import's answer: the team as it stands after it (members included), and where the filed records went. */
async function teamAnswer(caller: Caller, principal: Principal, done: { teamId: string; ids: Placed }) {
  return { imported: await importedTeam(caller.db, principal, done.teamId), ids: done.ids };
}

/** POST /teams/{id}/import: the export's records into the team. */
export async function importTeam(caller: Caller, parts: Parts, teamId: string, doc: ExportDocumentDto, update: boolean) {
  const principal = await caller.principal();
  return teamAnswer(
    caller,
    principal,
    // Interactive (the WebSocket): an import reads, resolves and writes in many steps.
    await caller.db.transaction((tx) => importIntoTeam(tx, principal, parts, teamId, documentSource(parts, doc), update)),
  );
}

/** POST /workspaces/import: a new workspace holding the export's records, the caller its owner; where the filed records went. */
export async function importNewWorkspace(caller: Caller, parts: Parts, doc: ExportDocumentDto) {
  const principal = await caller.principal();
  // Interactive (the WebSocket): an import reads, resolves and writes in many steps.
  return caller.db.transaction((tx) => importWorkspace(tx, principal, parts, documentSource(parts, doc)));
}

/** POST /imports: an import to send in parts. */
export async function openImport(caller: Caller, input: { teamId: string | null; update: boolean }) {
  return staged.openImport(caller.db, await caller.principal(), input);
}

/** GET /imports/{id} */
export async function getImport(caller: Caller, id: string) {
  return staged.getImport(caller.db, await caller.principal(), id);
}

/** PUT /imports/{id}/parts/{number} */
export async function putImportPart(caller: Caller, transfer: Transfer, id: string, number: number, doc: ExportDocumentDto) {
  return staged.putPart(caller.db, await caller.principal(), transfer.schemas, id, number, doc);
}

/** DELETE /imports/{id} */
export async function deleteImport(caller: Caller, id: string) {
  return staged.deleteImport(caller.db, await caller.principal(), id);
}

/**
 * POST /imports/{id}/commit: every part imported in one transaction, into its team or into a new workspace, answered
 * as the import it stands for.
 */
export async function commitImport(caller: Caller, { parts, schemas }: Transfer, id: string) {
  const principal = await caller.principal();
  // Interactive (the WebSocket): an import reads, resolves and writes in many steps.
  const done = await caller.db.transaction((tx) =>
    staged.commitImport<Imported>(tx, principal, { parts, schemas }, id, ({ teamId, update }, source) =>
      teamId === null ? importWorkspace(tx, principal, parts, source) : importIntoTeam(tx, principal, parts, teamId, source, update),
    ),
  );
  return "workspace" in done ? done : teamAnswer(caller, principal, done);
}
