// The OAuthGrant record: an agent host's access to the caller (docs/clients.md, OAuth), as GET /oauth/grants lists it.
// Never its code or refresh tokens.
import { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { oauthGrants } from "../../../drizzle/schema";
import { SCOPES } from "../../core/scopes";
import { EVERY_SCOPE } from "../../db/scope";
import { idKind, named } from "../../records/names";
import { defineRecord, f } from "../../store/field-map";

/** How a request names an OAuth grant: by its id (`ogr_…`) only. */
export const OAUTH_GRANT_ID = idKind("an OAuth grant id", "ogr");

export const oauthGrantRecord = defineRecord({
  name: "OAuthGrant",
  noun: "OAuth grant",
  resource: "oauth-grants",
  id: oauthGrants.id,
  workspace: oauthGrants.workspaceId,
  team: null,
  from: sql`${oauthGrants}`,
  fields: {
    id: f.id(oauthGrants.id, { names: named(OAUTH_GRANT_ID) }),
    clientId: f.text(oauthGrants.clientId, {
      doc: { description: "The client: its registered id, or the URL of its Client ID Metadata Document" },
    }),
    clientName: f.text(oauthGrants.clientName, { doc: { description: "The name the client gave itself (not verified)" } }),
    scopes: f.json(sql`coalesce(${oauthGrants.scopes}, ${EVERY_SCOPE})`, z.array(z.enum(SCOPES)), {
      doc: { description: "What its tokens may do, within the person's roles" },
    }),
    teamIds: f.json(oauthGrants.teamIds, z.array(z.string()).nullable(), {
      doc: { description: "The only teams its tokens reach; null: every team" },
    }),
    createdAt: f.datetime(oauthGrants.createdAt),
    lastUsedAt: f.datetime(oauthGrants.lastUsedAt, { nullable: true, doc: { description: "Moves at most once a minute" } }),
  },
});

/** An OAuth grant narrowed by `fields` (GET /oauth/grants). */
export const OAuthGrantSelection = oauthGrantRecord.selection;
export type OAuthGrant = z.infer<typeof oauthGrantRecord.schema>;
