export { type CursorKey, type CursorPayload, decodeCursor, encodeCursor, MAX_CURSOR_LENGTH } from "./cursor";
export {
  formatFields,
  MAX_FIELDS_DEPTH,
  MAX_FIELDS_LENGTH,
  MAX_FIELDS_NAMES,
  parseFields,
  projectFields,
  selects,
} from "./field-selection";
export { escapeLike, FILTER_OPS, MAX_FILTER_VALUE_LENGTH, MAX_FILTERS } from "./filter";
export { type FilterSort, FilterTerms, filterSortQuery, JsonFilter, JsonSort } from "./json";
export { pageQuery } from "./page-query";
export { DEFAULT_LIMIT, type ListParams, MAX_LIMIT, parseLimit, parseListParams } from "./params";
export { listBody } from "./respond";
export { MAX_SORT_KEYS } from "./sort";
export type { DynamicFields, FieldSelection, FieldShape, FilterOp, ListField, ListSpec, NamedValues, ValueKind } from "./types";
