import { TypeID, typeid } from "typeid-js";

/** The ids' prefixes (among them `mile` for milestones, `dev` for device authorizations, `ocl` and `ogr` for OAuth clients and grants; docs/api.md, conventions). */
export type IdPrefix =
  | "apik"
  | "user"
  | "ws"
  | "team"
  | "proj"
  | "task"
  | "label"
  | "cmnt"
  | "tmbr"
  | "inv"
  | "fdef"
  | "mile"
  | "dev"
  | "code"
  | "mail"
  | "evt"
  | "whk"
  | "dlv"
  | "rcvd"
  | "imp"
  | "ocl"
  | "ogr"
  | "rel"
  | "att"
  | "lnk"
  | "wlg"
  | "ses"
  | "act"
  | "ntf"
  | "cyc"
  | "sta";

/** `<prefix>_<26 chars>`: Crockford base32 of a UUIDv7, so ids sort by creation time. */
export const newId = (prefix: IdPrefix): string => typeid(prefix).toString();

/** When an id of `prefix` was made (its UUIDv7's milliseconds); null when it is not such an id. */
export function typeIdTime(id: string, prefix: IdPrefix): number | null {
  try {
    const uuid = TypeID.fromString(id, prefix).toUUID().replaceAll("-", "");
    return Number.parseInt(uuid.slice(0, 12), 16);
  } catch {
    return null;
  }
}

/** The lowest id of `prefix` made at `ms` (the UUIDv7 of that millisecond with zero bits): ids sort by time. */
export function typeIdAt(prefix: IdPrefix, ms: number): string {
  const hex = `${Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0")}7000${"0".repeat(16)}`;
  return TypeID.fromUUID(
    prefix,
    `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
  ).toString();
}
