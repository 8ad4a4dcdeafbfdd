// TEMPORARY, until the least-privilege change of src/auth lands on main: the two things MCP needs of it, so this branch
// compiles and runs before it. Once merged, callers use `caller.requiring(scope)` and `(await caller.principal()).scopes`
// directly and this file goes.
import type { Caller } from "../auth/caller";
import { SCOPES, type Scope } from "../core/scopes";

type Scoped = { requiring?: (scope: Scope | null) => Caller };

/** `caller.requiring(scope)`: the caller that needs `scope` on every statement (here: the caller itself). */
export const requiring = (caller: Caller, scope: Scope | null): Caller => (caller as unknown as Scoped).requiring?.(scope) ?? caller;

/** `(await caller.principal()).scopes` (here: every scope). */
export async function scopesOf(caller: Caller): Promise<readonly Scope[]> {
  const principal = (await caller.principal()) as { scopes?: Scope[] };
  return principal.scopes ?? SCOPES;
}
