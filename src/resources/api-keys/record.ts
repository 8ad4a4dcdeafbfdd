// The ApiKey record: its one field map (answer, schema, `fields` shape, list spec, create body). Never the raw key (it is
// not stored) nor its hash.
import { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { apiKeys } from "../../../drizzle/schema";
import { READABLE, SCOPES, type Scope } from "../../core/scopes";
import { EVERY_SCOPE, readsJson } from "../../db/scope";
import { formsOf, idKind, NamesOf, named } from "../../records/names";
import { defineRecord, f } from "../../store/field-map";

/** How a request names an API key: by its id (`apik_…`) only. */
export const API_KEY_ID = idKind("an API key id", "apik");

/** Scopes in a request body: the scope names of docs/api.md (least privilege), at least one. */
export const ScopeList = z
  .array(z.enum(SCOPES))
  .min(1)
  .openapi({ description: "What the credential may do (docs: Least privilege); omitted: every scope the caller's credential has" });
/** Teams in a request body: the workspace's teams by id or prefix; null: every team. */
export const TeamIdList = NamesOf("team", 100)
  .min(1)
  .nullable()
  .openapi({
    description: `The only teams it reaches, each ${formsOf("team")}, answered as ids; omitted: the caller's credential's teams (null: every team)`,
  });

export const apiKeyRecord = defineRecord({
  name: "ApiKey",
  resource: "api-keys",
  id: apiKeys.id,
  workspace: apiKeys.workspaceId,
  team: null,
  from: sql`${apiKeys}`,
  fields: {
    id: f.id(apiKeys.id, { names: named(API_KEY_ID) }),
    name: f.text(apiKeys.name, { input: { schema: z.string().trim().min(1).max(200), create: "required" } }),
    prefix: f.text(apiKeys.prefix, { doc: { description: "The first 10 characters of the raw key" } }),
    userId: f.id(apiKeys.userId, { names: named("user"), doc: { description: "The owner: the caller or one of the caller's agents" } }),
    workspaceId: f.id(apiKeys.workspaceId, { list: false }),
    scopes: f.json(sql`coalesce(${apiKeys.scopes}, ${EVERY_SCOPE})`, z.array(z.enum(SCOPES)), {
      input: { schema: ScopeList, write: "resolved" },
      doc: { description: "What the key may do, within its user's roles" },
    }),
    reads: f.json(readsJson(sql`coalesce(${apiKeys.scopes}, ${EVERY_SCOPE})`), z.array(z.enum(READABLE)), {
      doc: { description: "What the key reads: `read` reads everything, a `<records>:write` scope its records" },
    }),
    teamIds: f.json(apiKeys.teamIds, z.array(z.string()).nullable(), {
      input: { schema: TeamIdList, write: "resolved" },
      doc: { description: "The only teams the key reaches; null: every team" },
    }),
    createdAt: f.datetime(apiKeys.createdAt),
    lastUsedAt: f.datetime(apiKeys.lastUsedAt, { nullable: true, doc: { description: "Moves at most once a minute" } }),
    expiresAt: f.datetime(apiKeys.expiresAt, {
      nullable: true,
      input: {
        schema: z.iso
          .datetime({ offset: true, error: "Must be an ISO 8601 date-time" })
          .refine((s) => Date.parse(s) > Date.now(), "Must be in the future")
          .nullable()
          .openapi({ description: "When the key stops working; omitted or null: never", example: "2030-01-01T00:00:00.000Z" }),
      },
    }),
  },
});

export const ApiKeySchema = apiKeyRecord.schema;
export type ApiKey = z.infer<typeof ApiKeySchema>;
/** An API key narrowed by `fields` (GET /api-keys). */
export const ApiKeySelection = apiKeyRecord.selection;

export const ApiKeyCreate = z.object(apiKeyRecord.createShape()).strict().openapi("ApiKeyCreate");
export type ApiKeyCreateInput = { name: string; expiresAt?: string | null; scopes?: Scope[]; teamIds?: string[] | null } & Record<
  string,
  unknown
>;
