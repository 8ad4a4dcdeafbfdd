// An agent as POST /agents answers it: the new AGENT user with its raw key, returned once (no stored record has the key).
import { z } from "@hono/zod-openapi";
import { ScopeList, TeamIdList } from "../api-keys/record";
import { UserName } from "../users/record";

export const AgentCreate = z
  .object({ name: UserName, scopes: ScopeList.optional(), teamIds: TeamIdList.optional() })
  .strict()
  .openapi("AgentCreate");

export const AgentSchema = z
  .object({
    id: z.string().openapi({ description: "The agent's user id" }),
    name: z.string(),
    type: z.literal("AGENT"),
    humanId: z.string().openapi({ description: "The owning human (the caller)" }),
    apiKey: z.string().openapi({ description: "The agent's raw API key, returned only here" }),
  })
  .openapi("Agent");

export type AgentCreateInput = z.infer<typeof AgentCreate>;
export type Agent = z.infer<typeof AgentSchema>;
