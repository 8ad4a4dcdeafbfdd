import { users } from "../../../drizzle/schema";
import { joinWorkspaceWithKey } from "../../auth/accounts/membership";
import type { Caller } from "../../auth/caller";
import { grantsFor } from "../../auth/credential-grants";
import { forbidden } from "../../core/errors";
import { newId } from "../../ids";
import type { Agent, AgentCreateInput } from "./record";

/**
 * Agents have no mailbox but users.email is required and unique: each gets a reserved-TLD address built from its
 * own id (RFC 2606 `.invalid` can never receive mail), so it cannot collide with a person or be signed in by email.
 */
const agentEmail = (agentId: string) => `${agentId}@agents.pm.invalid`;

/**
 * POST /agents: a human's agent, an AGENT user, MEMBER of the caller's current workspace, with its own API key (which may
 * do what the body asks, never more than the caller's credential: auth/credential-grants.ts); one transaction.
 */
export async function createAgent(caller: Caller, input: AgentCreateInput): Promise<Agent> {
  const principal = await caller.principal();
  const { user, workspace } = principal;
  if (user.type !== "HUMAN") throw forbidden("Only a human user may create agents");
  // Interactive (the WebSocket): the grants are checked, then the user and its key are written.
  return caller.transaction(async (tx) => {
    const grants = await grantsFor(tx, principal, input);
    const id = newId("user");
    await tx.insert(users).values({ id, name: input.name, email: agentEmail(id), type: "AGENT", humanId: user.id });
    const key = await joinWorkspaceWithKey(tx, { workspaceId: workspace.id, userId: id, role: "MEMBER", keyName: "Agent key", grants });
    return { id, name: input.name, type: "AGENT" as const, humanId: user.id, apiKey: key };
  });
}
