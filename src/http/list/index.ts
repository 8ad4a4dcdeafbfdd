export { type CursorKey, type CursorPayload, decodeCursor, encodeCursor } from "./cursor";
export { formatFields, parseFields, projectFields, selects } from "./fields";
export { escapeLike, FILTER_OPS } from "./filter";
export { pageQuery } from "./page";
export { DEFAULT_LIMIT, type ListParams, MAX_LIMIT, parseLimit, parseListParams } from "./params";
export { listBody } from "./respond";
export type { DynamicFields, FieldSelection, FieldShape, FilterOp, ListField, ListSpec, ValueKind } from "./types";
