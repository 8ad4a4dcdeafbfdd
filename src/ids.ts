import { TypeID, typeid } from "typeid-js";

/** Prefixes of the spec (plus `mile` for milestones and `dev` for device authorizations, docs/api.md, conventions). */
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
  | "rcvd";

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
