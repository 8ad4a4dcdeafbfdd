/** What the API puts on the files queue: a stored object to remove, by its key (a row of the file_deletions outbox). */
export interface FileMessage {
  key: string;
}
