// Labels as one module (src/http/module.ts): the register entry, routes and MCP tools.
import type { ResourceModule } from "../../http/module";
import { createTool, deleteTool, listTool, updateTool } from "../../http/tool";
import { NameOf } from "../../records/names";
import { createLabel, deleteLabel, listLabels, updateLabel } from "./operations";
import { Label, LabelCreate, type LabelCreateInput, LabelUpdate, type LabelUpdateInput, labelRecord } from "./record";
import register from "./register";
import { labelRoutes } from "./routes";

export default {
  name: "labels",
  resource: register,
  eventRecords: { label: labelRecord.fields },
  routes: [labelRoutes],
  tools: [
    { ...listTool("labels", labelRecord, listLabels), rank: 210 },
    {
      ...createTool<LabelCreateInput>(
        "label",
        "labels",
        LabelCreate,
        Label,
        createLabel,
        "Creates a label (POST /labels); its name is unique in the workspace, in any case.",
      ),
      rank: 220,
    },
    {
      ...updateTool<LabelUpdateInput>(
        "label",
        "labels",
        NameOf("label"),
        LabelUpdate,
        Label,
        updateLabel,
        "Renames or recolours a label (PATCH /labels/{id}).",
      ),
      rank: 230,
    },
    { ...deleteTool("label", "labels", NameOf("label"), deleteLabel, " Its tasks and projects stay, without it."), rank: 240 },
  ],
} satisfies ResourceModule;
