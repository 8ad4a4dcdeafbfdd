// An export document too large for one import request (32 MiB), cut into parts for an import sent in parts
// (POST /imports, PUT /imports/{id}/parts/{n}, POST /imports/{id}/commit; docs/api.md, export and import). Plain
// JavaScript with its types beside it (transfer.d.ts), so Node scripts take it as it is: the `pm` CLI, the bench.

/** What one import request may carry, less room for the envelope (`{"data": …, "update": …}`). */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024 - 64 * 1024;
/** What a part carries by default: the API Worker checks a part in memory, so a few MiB keep it well within its 128 MB. */
export const PART_BYTES = 8 * 1024 * 1024;

const COLLECTIONS = ["users", "labels", "fields", "teams", "projects", "milestones", "tasks", "comments", "relations", "links"];

/**
 * `doc` as parts of at most about `maxBytes` of JSON each: the first holds everything but the tasks, comments, relations
 * and links, the others as many tasks, then comments, then relations, then links, as fit. Every part is an export document of the same type and root; each record
 * is in exactly one part.
 */
export function splitExport(doc, maxBytes = PART_BYTES) {
  const empty = Object.fromEntries(COLLECTIONS.map((name) => [name, []]));
  const frame = (data) => ({ ...doc, data: { ...empty, root: doc.data.root, ...data } });
  // A document exported before relations or links travelled has none.
  const { tasks, comments, relations = [], links = [], ...head } = doc.data;
  const parts = [frame(head)];
  for (const [name, list] of [
    ["tasks", tasks],
    ["comments", comments],
    ["relations", relations],
    ["links", links],
  ]) {
    let chunk = [];
    let size = 0;
    for (const record of list) {
      const bytes = JSON.stringify(record).length + 1;
      if (chunk.length && size + bytes > maxBytes) {
        parts.push(frame({ [name]: chunk }));
        chunk = [];
        size = 0;
      }
      chunk.push(record);
      size += bytes;
    }
    if (chunk.length) parts.push(frame({ [name]: chunk }));
  }
  return parts;
}
