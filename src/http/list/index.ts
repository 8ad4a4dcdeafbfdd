export type { FieldSelection, FieldShape, FilterOp, ListField, ListSpec, ValueKind } from "./types";
export { decodeCursor, encodeCursor, type CursorKey, type CursorPayload } from "./cursor";
export { formatFields, parseFields, projectFields, selects } from "./fields";
export { DEFAULT_LIMIT, MAX_LIMIT, parseLimit, parseListParams, type ListParams } from "./params";
export { escapeLike, FILTER_OPS } from "./filter";
export { listBody } from "./respond";
export { pageQuery } from "./page";
