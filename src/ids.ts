import { typeid } from "typeid-js";

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
