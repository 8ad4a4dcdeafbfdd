// The service's resources, each one module (src/http/module.ts), in the order the app mounts them: the app, MCP and the
// route policies iterate this list (docs/architecture.md, "Adding a resource"). A new resource is its folder and one
// line here (and, for the service's own, its register entry, its folder's register.ts, one line in src/core/resources.ts).
import type { ResourceModule } from "../http/module";
import account from "./account";
import agentSessions from "./agent-sessions";
import agents from "./agents";
import apiKeys from "./api-keys";
import attachments from "./attachments";
import batch from "./batch";
import comments from "./comments";
import cycles from "./cycles";
import device from "./device";
import events from "./events";
import fields from "./fields";
import invites from "./invites";
import labels from "./labels";
import links from "./links";
import login from "./login";
import me from "./me";
import milestones from "./milestones";
import notifications from "./notifications";
import oauth from "./oauth";
import projects from "./projects";
import relations from "./relations";
import search from "./search";
import signup from "./signup";
import states from "./states";
import sync from "./sync";
import system from "./system";
import tasks from "./tasks";
import teamMembers from "./team-members";
import teams from "./teams";
import { imports, transfer } from "./transfer";
import users from "./users";
import webhooks from "./webhooks";
import worklogs from "./worklogs";
import workspaces from "./workspaces";

export const MODULES: readonly ResourceModule[] = [
  system,
  signup,
  login,
  device,
  account,
  me,
  users,
  workspaces,
  invites,
  agents,
  apiKeys,
  labels,
  fields,
  teams,
  teamMembers,
  states,
  tasks,
  relations,
  attachments,
  links,
  worklogs,
  agentSessions,
  notifications,
  projects,
  milestones,
  cycles,
  events,
  sync,
  comments,
  webhooks,
  search,
  transfer,
  imports,
  oauth,
  batch,
];
