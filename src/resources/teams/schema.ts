import { z } from "@hono/zod-openapi";
import { BodyId, LongText, selectable } from "../../http/schemas";
import { TeamMemberItem } from "../team-members/schema";

export const TeamPrefix = z
  .string()
  .max(10, "Must be 2 to 10 upper-case letters or digits, starting with a letter")
  .regex(/^[A-Z][A-Z0-9]{1,9}$/, "Must be 2 to 10 upper-case letters or digits, starting with a letter")
  .openapi({ example: "ENG" });

export const Team = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    description: z.string(),
    parentId: z.string().nullable(),
    parent: z.object({ id: z.string(), name: z.string() }).nullable(),
    members: z.array(TeamMemberItem),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Team");

const name = z.string().trim().min(1).max(100);
const parentId = BodyId.nullable().openapi({ description: "A team of the workspace; null for a top-level team" });

export const TeamCreate = z
  .object({ name, prefix: TeamPrefix, description: LongText.optional(), parentId: parentId.optional() })
  .strict()
  .openapi("TeamCreate");
export const TeamUpdate = TeamCreate.partial().strict().openapi("TeamUpdate", {
  description: "Partial; `parentId: null` makes the team top-level. A parent that is the team itself or one of its sub-teams is 422.",
});

export type TeamCreateInput = z.infer<typeof TeamCreate>;
export type TeamUpdateInput = z.infer<typeof TeamUpdate>;

/** As routes that take `fields` answer them (every key optional). */
export const TeamSelection = selectable(Team, "TeamSelection");
