import { users } from "../../../drizzle/schema";
import { joinWorkspaceWithKey } from "../../auth/accounts/membership";
import type { Principal } from "../../auth/principal";
import { forbidden } from "../../core/errors";
import type { Db } from "../../db/client";
import { newId } from "../../ids";
import type { Agent, AgentCreateInput } from "./schema";

/**
 * Agents have no mailbox but users.email is required and unique: each gets a reserved-TLD address built from its
 * own id (RFC 2606 `.invalid` can never receive mail), so it cannot collide with a person or be signed in by email.
 */
export const agentEmail = (agentId: string) => `${agentId}@agents.pm.invalid`;

/** A human's agent: an AGENT user, MEMBER of the caller's current workspace, with its own API key; one transaction. */
export function createAgent(db: Db, principal: Principal, input: AgentCreateInput): Promise<Agent> {
  if (principal.user.type !== "HUMAN") throw forbidden("Only a human user may create agents");
  const workspaceId = principal.workspace.id;
  const humanId = principal.user.id;
  return db.transaction(async (tx) => {
    const id = newId("user");
    await tx.insert(users).values({ id, name: input.name, email: agentEmail(id), type: "AGENT", humanId });
    const key = await joinWorkspaceWithKey(tx, { workspaceId, userId: id, role: "MEMBER", keyName: "Agent key" });
    return { id, name: input.name, type: "AGENT" as const, humanId, apiKey: key };
  });
}
