// The transfer's operations: an export, an import sent whole, and one sent in parts (opened, filled, committed). Each
// loads the caller's principal and runs its import in one transaction; the routes only parse, call and answer.
import type { Caller } from "../../auth/caller";
import { exportDocument } from "./export";
import { importedTeam, importIntoTeam, importWorkspace } from "./import";
import type { ExportDocumentDto, ExportType } from "./schema";
import { documentSource } from "./source";
import * as staged from "./staged";

/** GET /<type>s/{id}/export: the document's text or stream, and when its writing ended. */
export async function exportRecords(caller: Caller, type: ExportType, idOrRef: string) {
  return exportDocument(caller.db, await caller.principal(), type, idOrRef);
}

/** POST /teams/{id}/import: the export's records into the team, then the team as it stands (members included). */
export async function importTeam(caller: Caller, teamId: string, doc: ExportDocumentDto, update: boolean) {
  const principal = await caller.principal();
  const id = await caller.db.transaction((tx) => importIntoTeam(tx, principal, teamId, documentSource(doc), update));
  return importedTeam(caller.db, principal, id);
}

/** POST /workspaces/import: a new workspace holding the export's records, the caller its owner. */
export async function importNewWorkspace(caller: Caller, doc: ExportDocumentDto) {
  const principal = await caller.principal();
  return caller.db.transaction((tx) => importWorkspace(tx, principal, documentSource(doc)));
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
export async function putImportPart(caller: Caller, id: string, number: number, doc: ExportDocumentDto) {
  return staged.putPart(caller.db, await caller.principal(), id, number, doc);
}

/** DELETE /imports/{id} */
export async function deleteImport(caller: Caller, id: string) {
  return staged.deleteImport(caller.db, await caller.principal(), id);
}

/**
 * POST /imports/{id}/commit: every part imported in one transaction, into its team (answered as the team) or into a
 * new workspace (answered as the workspace).
 */
export async function commitImport(caller: Caller, id: string) {
  const principal = await caller.principal();
  const done = await caller.db.transaction((tx) =>
    staged.commitImport(tx, principal, id, async ({ teamId, update }, source) => {
      if (teamId === null) return { teamId, workspace: await importWorkspace(tx, principal, source) };
      return { teamId: await importIntoTeam(tx, principal, teamId, source, update), workspace: null };
    }),
  );
  if (done.teamId === null) return { workspace: done.workspace };
  return { team: await importedTeam(caller.db, principal, done.teamId) };
}
