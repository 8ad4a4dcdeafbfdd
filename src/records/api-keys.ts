import { z } from "@hono/zod-openapi";
import { apiKeys } from "../../drizzle/schema";
import { iso, isoOrNull } from "../core/dates";
import { selectable } from "../http/schemas";

export const ApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().openapi({ description: "The first 10 characters of the raw key" }),
    userId: z.string().openapi({ description: "The owner: the caller or one of the caller's agents" }),
    workspaceId: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable().openapi({ description: "Moves at most once a minute" }),
    expiresAt: z.string().nullable(),
  })
  .openapi("ApiKey");

export const ApiKeyCreate = z
  .object({
    name: z.string().trim().min(1).max(200),
    expiresAt: z.iso
      .datetime({ offset: true, error: "Must be an ISO 8601 date-time" })
      .refine((s) => Date.parse(s) > Date.now(), "Must be in the future")
      .nullable()
      .optional()
      .openapi({ description: "When the key stops working; omitted or null: never", example: "2030-01-01T00:00:00.000Z" }),
  })
  .strict()
  .openapi("ApiKeyCreate");

export type ApiKey = z.infer<typeof ApiKeySchema>;
/** An API key narrowed by `fields` (GET /api-keys). */
export const ApiKeySelection = selectable(ApiKeySchema, "ApiKeySelection");
export type ApiKeyCreateInput = z.infer<typeof ApiKeyCreate>;

type ApiKeyRow = typeof apiKeys.$inferSelect;

/** The public view of a key: never the raw key (it is not stored) nor its hash. */
export const serializeApiKey = (k: Pick<ApiKeyRow, keyof ApiKey>): ApiKey => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  userId: k.userId,
  workspaceId: k.workspaceId,
  createdAt: iso(k.createdAt),
  lastUsedAt: isoOrNull(k.lastUsedAt),
  expiresAt: isoOrNull(k.expiresAt),
});

export const apiKeyColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  userId: apiKeys.userId,
  workspaceId: apiKeys.workspaceId,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
  expiresAt: apiKeys.expiresAt,
};
