// Scope names as the command line gives them (`pm keys create --scope`, `pm login --scope`), checked against the list
// the API itself checks (docs/api.md, least privilege), so a typo is a usage error before any request.
// The module that defines them is bundled from the API's source (it imports nothing).
import { SCOPES, type Scope } from "../src/core/scopes";
import { UsageError } from "./errors";

export { SCOPES, type Scope };

/** The scopes of `values` (each repeated, or several in one value, comma- or space-separated), without repeats. */
export function scopeNames(values: string[], option: string): Scope[] {
  const names = [...new Set(values.flatMap((value) => value.split(/[\s,]+/)).filter(Boolean))];
  for (const name of names) {
    if (!(SCOPES as readonly string[]).includes(name))
      throw new UsageError(`--${option} '${name}' is not a scope (scopes: ${SCOPES.join(", ")})`);
  }
  return names as Scope[];
}

/** `all` when `scopes` is every scope (what a credential made without any has), else the names. */
export const scopesText = (scopes: readonly string[] | undefined) =>
  scopes && SCOPES.every((scope) => scopes.includes(scope)) ? "all" : scopes;
