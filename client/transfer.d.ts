import type { components } from "./api";

type ExportDocument = components["schemas"]["Export"];

export declare const MAX_REQUEST_BYTES: number;
export declare const PART_BYTES: number;
/** `doc` as parts of at most about `maxBytes` of JSON each (see transfer.js). */
export declare function splitExport(doc: ExportDocument, maxBytes?: number): ExportDocument[];
