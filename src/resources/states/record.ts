// The WorkflowState record (docs/api.md "Workflow states"): one of a team's ordered states, whose key a
// task's `status` holds and whose category says what that status means. Its one field map gives the answer, the list,
// the create and update bodies, what its events carry and what an export holds.
import { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { workflowStates } from "../../../drizzle/schema";
import { idKind, named } from "../../records/names";
import { StateCategory, StateKey } from "../../records/task-status";
import { defineRecord, f } from "../../store/field-map";
import { BodyId, ExportTimestamp, HexColor } from "../../store/schemas";

/** How a request names a state: by its id (`sta_…`); a task's status and `moveTo` name it by key or name. */
export const STATE_ID = idKind("a workflow state id", "sta");
/** A team has at most this many states (its list is not paginated). */
export const MAX_STATES = 50;

export const stateRecord = defineRecord({
  name: "WorkflowState",
  resource: "states",
  id: workflowStates.id,
  workspace: workflowStates.workspaceId,
  team: workflowStates.teamId,
  from: sql`${workflowStates}`,
  fields: {
    id: f.id(workflowStates.id, { names: named(STATE_ID), exported: BodyId, doc: { example: "sta_01jz8x4q0be0sv3c5kq9v1y2ab" } }),
    teamId: f.id(workflowStates.teamId, { names: named("team"), exported: BodyId }),
    key: f.text(workflowStates.key, {
      input: { schema: StateKey, create: "required" },
      exported: true,
      doc: { description: "What a task's `status` holds: 1..32 of A-Z, 0-9, _; unique in the team, fixed once made", example: "IN_QA" },
    }),
    name: f.text(workflowStates.name, {
      input: { schema: z.string().trim().min(1).max(100), create: "required" },
      exported: true,
      doc: { description: "Unique in the team in any case; a task's `status` may name the state by it", example: "In QA" },
    }),
    category: f.enum(workflowStates.category, StateCategory, { input: { schema: StateCategory, create: "required" }, exported: true }),
    position: f.number(workflowStates.position, {
      input: { schema: z.number().min(-1e9).max(1e9) },
      exported: true,
      doc: { description: "The team's states are in position order (default: after the last); any number, so one fits between two" },
    }),
    color: f.text(workflowStates.color, {
      input: { schema: HexColor },
      exported: true,
      doc: { description: "`#RRGGBB` (default: the category's)", example: "#F2C94C" },
    }),
    description: f.text(workflowStates.description, { input: { schema: z.string().max(2000) }, exported: true }),
    createdAt: f.datetime(workflowStates.createdAt, { exported: ExportTimestamp }),
    updatedAt: f.datetime(workflowStates.updatedAt, { exported: ExportTimestamp }),
  },
});

export const WorkflowState = stateRecord.schema;
export type WorkflowStateDto = z.infer<typeof WorkflowState>;

export const StateCreate = z.object(stateRecord.createShape()).strict().openapi("WorkflowStateCreate");
const { key: _key, ...updateShape } = stateRecord.inputShape() as Record<string, z.ZodType>;
/** Everything but `key`, which is fixed once made (422 as an unknown field). */
export const StateUpdate = z.object(updateShape).partial().strict().openapi("WorkflowStateUpdate");
type Category = z.infer<typeof StateCategory>;
export type StateCreateInput = { key: string; name: string; category: Category; position?: number; color?: string; description?: string };
export type StateUpdateInput = Partial<Omit<StateCreateInput, "key">>;

/** An exported state as an import reads it. */
export type ExportedState = {
  id: string;
  teamId: string;
  key: string;
  name: string;
  category: Category;
  position: number;
  color: string;
  description: string;
  createdAt: string;
  updatedAt: string;
};
