// Attachments in the export document (src/store/transfer-part.ts): the files of the export's tasks and their comments,
// each with `path`, where `pm export --files` stores its bytes. An import checks them and restores none (the bytes are
// not in the document): its answer places each one's task and comment, and `pm import --files` uploads it there.
import { attachments } from "../../../drizzle/schema";
import type { TransferPart } from "../../store/transfer-part";
import { ExportAttachment, type ExportedAttachment, exportedAttachmentJson } from "./record";

export const attachmentsPart: TransferPart<ExportedAttachment> = {
  collection: "attachments",
  schema: ExportAttachment,
  description: "The files of the export's tasks and their comments; an import skips them (docs/api.md)",
  export: {
    table: attachments,
    creator: attachments.creatorId,
    condition: (scope) => scope.onTasks(attachments),
    record: { exportJson: exportedAttachmentJson },
  },
  import: {
    filed: {
      rule:
        "Files (`data.attachments`) are checked, not restored: the answer's `ids` names the " +
        "record each one's task or comment became, for the client to upload it there.",
      answer:
        "Where the import put each task and comment that a file of the document (`data.attachments`) hangs on, by its id in the document: " +
        "the import restores no bytes, and a client uploads each file onto the record named here (`pm import --files`)",
    },
  },
};
