// What a new credential may do (docs/api.md, "Least privilege"): a key (POST /api-keys), an agent's key (POST /agents) or
// a device's login (its approval) gets what it asks for, or by default all that the credential creating it has, and
// never more: scopes within the creator's scopes, teams within the creator's teams.
import { sql } from "drizzle-orm";
import { teams } from "../../drizzle/schema";
import { forbidden, notFound } from "../core/errors";
import { SCOPES, type Scope } from "../core/scopes";
import type { Executor } from "../db/client";
import { namedIds } from "../records/names";
import type { Principal } from "./principal";

/** What a credential is granted: null scopes is every scope (also those added later), null teams every team. */
export interface Grants {
  scopes: Scope[] | null;
  teamIds: string[] | null;
}

/** What the creator's credential has, as stored grants (every scope is null, so it stays every scope). */
export const ofPrincipal = (p: Principal): Grants => ({ scopes: p.scopes.length === SCOPES.length ? null : p.scopes, teamIds: p.teamIds });

/**
 * The grants of a credential `creator` makes: `asked` narrowed to what the creator has. A scope the creator lacks is
 * 403 naming it; a team (by id or prefix) that is not one of the workspace's, or outside the creator's teams, is 404
 * "Team" (one query, only when teams are named).
 */
export async function grantsFor(db: Executor, creator: Principal, asked: Partial<Grants>): Promise<Grants> {
  const has = ofPrincipal(creator);
  const scopes = asked.scopes === undefined || asked.scopes === null ? has.scopes : SCOPES.filter((s) => asked.scopes!.includes(s));
  const lacking = scopes?.find((s) => !creator.scopes.includes(s));
  if (lacking) throw forbidden(`This credential cannot grant the scope ${lacking}, which it does not have`, { requiredScope: lacking });
  if (asked.teamIds === undefined || (asked.teamIds === null && has.teamIds === null)) return { scopes, teamIds: has.teamIds };
  if (asked.teamIds === null) throw forbidden("A credential bound to teams cannot grant every team");
  // The teams named by id or prefix, resolved and checked in one query.
  const [named] = (
    await db.execute<{ ids: (string | null)[]; found: string[] }>(sql`
      select named.ids, array(select ${teams.id} from ${teams} where ${teams.workspaceId} = ${creator.workspace.id}
        and ${teams.id} = any(named.ids)) as found
      from (select ${namedIds("team", asked.teamIds, creator.workspace.id)} as ids) as named`)
  ).rows;
  const missing = named.ids.some((id) => id === null || !named.found.includes(id) || (has.teamIds !== null && !has.teamIds.includes(id)));
  if (missing) throw notFound("Team");
  return { scopes, teamIds: named.ids as string[] };
}
