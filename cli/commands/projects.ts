// `pm projects list|create` and `pm milestones list|create`: a project is named by its reference (ENG-P1), a
// milestone by its project and name.
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs, oneOf } from "../argv";
import { addFilter, listArgs, listQuery, printList } from "../list";
import { printJson } from "../output";
import { openSession, unwrap } from "../session";

type Project = Schemas["ProjectSelection"];
type Milestone = Schemas["MilestoneSelection"];

const PROJECT_STATUSES = ["PLANNING", "ACTIVE", "PAUSED", "COMPLETED", "CANCELED"] as const satisfies readonly Project["status"][];
const MILESTONE_STATUSES = ["PLANNED", "IN_PROGRESS", "DONE"] as const satisfies readonly Milestone["status"][];

const listAllArgs = {
  team: { type: "string", valueHint: "ENG|id", description: "Only this team's projects" },
  status: { type: "string", valueHint: "active,paused", description: "Only these statuses (any case)" },
  search: { type: "string", valueHint: "words", description: "Only projects whose name contains this" },
  ...listArgs,
  ...commonArgs,
} as const;

const list = defineCommand({
  meta: { name: "pm projects list", description: "List the workspace's projects" },
  args: listAllArgs,
  async run({ args, rawArgs }) {
    const query = listQuery(args, rawArgs, listAllArgs);
    const statuses = args.status?.split(",").map((status) => oneOf("status", status, PROJECT_STATUSES)) ?? [];
    if (statuses.length > 0) addFilter(query, statuses.length > 1 ? "in" : "eq", "status", statuses.length > 1 ? statuses : statuses[0]);
    if (args.search) addFilter(query, "contains", "name", args.search);
    const session = openSession(args);
    if (args.team) addFilter(query, "eq", "teamId", args.team);
    await printList(args, (q) => unwrap(session.client.GET("/projects", { params: { query: q } })), query, "projects", [
      { header: "REF", value: (p: Project) => p.reference },
      { header: "STATUS", value: (p: Project) => p.status },
      { header: "LEAD", value: (p: Project) => p.lead },
      { header: "NAME", value: (p: Project) => p.name },
    ]);
  },
});

const create = defineCommand({
  meta: { name: "pm projects create", description: "Create a project in a team" },
  args: {
    name: { type: "positional", description: "The project's name", required: true },
    team: { type: "string", valueHint: "ENG|id", description: "Its team", required: true },
    description: { type: "string", description: "What it is for (Markdown)" },
    status: { type: "string", valueHint: PROJECT_STATUSES.join("|"), description: "Status (default PLANNING)" },
    start: { type: "string", valueHint: "YYYY-MM-DD", description: "Start date" },
    target: { type: "string", valueHint: "YYYY-MM-DD", description: "Target date" },
    ...commonArgs,
  },
  async run({ args }) {
    const status = args.status === undefined ? undefined : oneOf("status", args.status, PROJECT_STATUSES);
    const session = openSession(args);
    const teamId = args.team;
    const body = { name: args.name, teamId, description: args.description, status, startDate: args.start, targetDate: args.target };
    const answer = await unwrap(session.client.POST("/projects", { body }));
    if (args.json) return printJson(answer);
    console.log(`created the project ${answer.project.reference} ${answer.project.name}`);
  },
});

export const projects = defineCommand({
  meta: { name: "pm projects", description: "Projects" },
  subCommands: { list, create },
});

const projectArg = { type: "string", valueHint: "ENG-P1", description: "The project", required: true } as const;
const milestoneListArgs = { project: projectArg, ...listArgs, ...commonArgs } as const;

const milestoneList = defineCommand({
  meta: { name: "pm milestones list", description: "List a project's milestones" },
  args: milestoneListArgs,
  async run({ args, rawArgs }) {
    const query = listQuery(args, rawArgs, milestoneListArgs);
    const { client } = openSession(args);
    const path = { id: args.project };
    await printList(args, (q) => unwrap(client.GET("/projects/{id}/milestones", { params: { path, query: q } })), query, "milestones", [
      { header: "NAME", value: (m: Milestone) => m.name },
      { header: "STATUS", value: (m: Milestone) => m.status },
      { header: "TARGET", value: (m: Milestone) => m.targetDate },
    ]);
  },
});

const milestoneCreate = defineCommand({
  meta: { name: "pm milestones create", description: "Create a milestone in a project" },
  args: {
    name: { type: "positional", description: "The milestone's name", required: true },
    project: projectArg,
    description: { type: "string", description: "What it marks (Markdown)" },
    status: { type: "string", valueHint: MILESTONE_STATUSES.join("|"), description: "Status (default PLANNED)" },
    target: { type: "string", valueHint: "YYYY-MM-DD", description: "Target date" },
    ...commonArgs,
  },
  async run({ args }) {
    const status = args.status === undefined ? undefined : oneOf("status", args.status.replace(/-/g, "_"), MILESTONE_STATUSES);
    const { client } = openSession(args);
    const body = { name: args.name, projectId: args.project, description: args.description, status, targetDate: args.target };
    const answer = await unwrap(client.POST("/milestones", { body }));
    if (args.json) return printJson(answer);
    console.log(`created the milestone ${answer.milestone.name} in ${args.project.toUpperCase()}`);
  },
});

export const milestones = defineCommand({
  meta: { name: "pm milestones", description: "Milestones of projects" },
  subCommands: { list: milestoneList, create: milestoneCreate },
});
