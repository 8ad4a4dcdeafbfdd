import { z } from "@hono/zod-openapi";
import { HexColor, selectable } from "../../http/schemas";

export const LabelSummary = z.object({ id: z.string(), name: z.string(), color: z.string() }).openapi("LabelSummary");
export const Label = LabelSummary.extend({ createdAt: z.string(), updatedAt: z.string() }).openapi("Label");

export const LabelCreate = z
  .object({ name: z.string().trim().min(1).max(100), color: HexColor })
  .strict()
  .openapi("LabelCreate");
export const LabelUpdate = LabelCreate.partial().strict().openapi("LabelUpdate");

export type LabelCreateInput = z.infer<typeof LabelCreate>;
export type LabelUpdateInput = z.infer<typeof LabelUpdate>;

/** As routes that take `fields` answer them (every key optional). */
export const LabelSelection = selectable(Label, "LabelSelection");
