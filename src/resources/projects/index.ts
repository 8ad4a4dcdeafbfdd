// Projects as one module (src/http/module.ts): the register entry, routes and MCP tools.
import type { ResourceModule } from "../../http/module";
import { createTool, listTool, updateTool } from "../../http/tool";
import { NameOf } from "../../records/names";
import { createProject, listProjects, updateProject } from "./operations";
import { Project, ProjectCreate, type ProjectCreateInput, ProjectUpdate, type ProjectUpdateInput, projectRecord } from "./record";
import register from "./register";
import { projectRoutes } from "./routes";

export default {
  name: "projects",
  resource: register,
  eventRecords: { project: projectRecord.fields },
  routes: [projectRoutes],
  tools: [
    { ...listTool("projects", projectRecord, listProjects), rank: 160 },
    {
      ...createTool<ProjectCreateInput>(
        "project",
        "projects",
        ProjectCreate,
        Project,
        createProject,
        "Creates a project in a team (POST /projects); its reference is `<PREFIX>-P<n>`.",
      ),
      rank: 170,
    },
    {
      ...updateTool<ProjectUpdateInput>(
        "project",
        "projects",
        NameOf("project"),
        ProjectUpdate,
        Project,
        updateProject,
        "Changes the given fields of a project (PATCH /projects/{id}): null clears a field, labelIds replaces the set.",
      ),
      rank: 180,
    },
  ],
} satisfies ResourceModule;
