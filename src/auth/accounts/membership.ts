import { eq } from "drizzle-orm";
import { apiKeys, users, workspaceMembers, workspaces } from "../../../drizzle/schema";
import { randomToken } from "../../core/crypto";
import type { Executor } from "../../db/client";
import { newId } from "../../ids";
import { type ApiKey, apiKeyRecord } from "../../resources/api-keys/record";
import { generateApiKey } from "../api-keys";
import type { Grants } from "../credential-grants";

export function slugify(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return base || "workspace";
}

/** A new workspace with a free slug: the clean slug when it is free, else the slug with a random suffix. */
export async function insertWorkspace(tx: Executor, name: string) {
  const base = slugify(name);
  for (let attempt = 0; ; attempt++) {
    const slug =
      attempt === 0
        ? base
        : `${base}-${randomToken(4)
            .toLowerCase()
            .replace(/[^a-z0-9]/g, "x")
            .slice(0, 5)}`;
    const [ws] = await tx
      .insert(workspaces)
      .values({ id: newId("ws"), name, slug })
      .onConflictDoNothing({ target: workspaces.slug })
      .returning();
    if (ws) return ws;
  }
}

/** Adds a user to a workspace with a role and issues an API key for them there; returns the raw key. */
export async function joinWorkspaceWithKey(
  tx: Executor,
  args: { workspaceId: string; userId: string; role: "MEMBER" | "ADMIN" | "OWNER"; keyName: string; grants?: Grants },
): Promise<string> {
  await tx.insert(workspaceMembers).values({ workspaceId: args.workspaceId, userId: args.userId, role: args.role }).onConflictDoNothing();
  return issueApiKey(tx, { workspaceId: args.workspaceId, userId: args.userId, name: args.keyName, grants: args.grants });
}

/** Issues an API key for a workspace member; returns the raw key. */
export async function issueApiKey(
  tx: Executor,
  args: { workspaceId: string; userId: string; name: string; expiresAt?: Date | null; grants?: Grants },
): Promise<string> {
  return (await insertApiKey(tx, args)).key;
}

export async function userByEmail(db: Executor, email: string) {
  const [user] = await db.select().from(users).where(eq(users.email, email)).limit(1);
  return user;
}

/** Stores a new key for a workspace member (only its hash); returns the public view and the raw key, shown once. */
export async function insertApiKey(
  db: Executor,
  args: { workspaceId: string; userId: string; name: string; expiresAt?: Date | null; grants?: Grants },
): Promise<{ apiKey: ApiKey; key: string }> {
  const key = await generateApiKey();
  const [row] = await db
    .insert(apiKeys)
    .values({
      id: newId("apik"),
      workspaceId: args.workspaceId,
      userId: args.userId,
      name: args.name,
      prefix: key.prefix,
      keyHash: key.hash,
      expiresAt: args.expiresAt ?? null,
      scopes: args.grants?.scopes ?? null,
      teamIds: args.grants?.teamIds ?? null,
    })
    .returning({ apiKey: apiKeyRecord.json() });
  return { apiKey: row.apiKey, key: key.raw };
}
