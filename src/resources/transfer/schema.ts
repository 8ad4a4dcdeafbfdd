// The export document (docs/api.md, export and import): what GET …/export answers and what an import takes back, version 1.
// Records are flat and link by id (`teamId`, `parentId`, `labelIds`, …), so one shape serves every export type.
import { z } from "@hono/zod-openapi";
import { teamRole, userType, workspaceRole } from "../../../drizzle/schema";
import { BodyId, LongText, ObjectKey } from "../../http/schemas";
import { ExportAttachment } from "../../records/attachments";
import { commentRecord, type ExportedComment } from "../../records/comments";
import { type ExportedField, fieldRecord } from "../../records/fields";
import { type ExportedLabel, labelRecord } from "../../records/labels";
import { type ExportedMilestone, milestoneRecord } from "../../records/milestones";
import { type ExportedProject, projectRecord } from "../../records/projects";
import { type ExportedLink, linkRecord } from "../../records/task-links";
import { type ExportedRelation, storedRelationRecord } from "../../records/task-relations";
import { type ExportedTask, taskRecord } from "../../records/tasks";
import { TeamPrefix } from "../../records/teams";
import { type ExportedWorklog, worklogRecord } from "../../records/worklogs";
import { WorkspaceName } from "../../records/workspaces";

export const EXPORT_TYPES = ["task", "project", "team", "workspace"] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];

const id = BodyId;
const link = id.nullable();
const text = (max: number) => z.string().max(max);
const _name = z.string().trim().min(1).max(500);
const timestamp = z.iso.datetime({ offset: true }).openapi({ description: "ISO 8601; not imported (an import is a new write)" });
const times = { createdAt: timestamp, updatedAt: timestamp };
const _customFields = z.record(ObjectKey, z.unknown()).openapi({ description: "`{<field key>: value}`, checked against the fields" });
const _labelIds = z.array(id).max(100);

const ExportUser = z
  .object({ id, name: text(500), email: text(320), avatarUrl: z.string().max(2048).nullable(), type: z.enum(userType.enumValues) })
  .strict()
  .openapi("ExportUser", { description: "A person or agent the records point at (assignee, lead, author, member)" });
const ExportLabel = labelRecord.exportSchema<ExportedLabel>("ExportLabel");
const ExportField = fieldRecord.exportSchema<ExportedField>("ExportField");
const ExportTeamMember = z
  .object({ id, userId: id, role: z.enum(teamRole.enumValues) })
  .strict()
  .openapi("ExportTeamMember");
const ExportTeam = z
  .object({
    id,
    name: z.string().trim().min(1).max(100),
    prefix: TeamPrefix,
    description: LongText,
    parentId: link,
    members: z.array(ExportTeamMember),
    ...times,
  })
  .strict()
  .openapi("ExportTeam");
// From the records' field maps: what an export carries is what an import checks (a new field is exported and imported).
const ExportProject = projectRecord.exportSchema<ExportedProject>("ExportProject");
const ExportMilestone = milestoneRecord.exportSchema<ExportedMilestone>("ExportMilestone");
const ExportTask = taskRecord.exportSchema<ExportedTask>("ExportTask");
const ExportComment = commentRecord.exportSchema<ExportedComment>("ExportComment");
// The stored edge (`blocked_by` is `blocks` from the other task; `related` is stored once a pair).
const ExportRelation = storedRelationRecord.exportSchema<ExportedRelation>("ExportRelation");
// A link's URL is checked by the rule POST /tasks/{id}/links checks it with.
const ExportLink = linkRecord.exportSchema<ExportedLink>("ExportLink");
// A worklog's duration and start are checked by the rules POST /tasks/{id}/worklogs checks them with.
const ExportWorklog = worklogRecord.exportSchema<ExportedWorklog>("ExportWorklog");

/**
 * Every record of an export has an id of its own (the import maps each id to one record; a second record under an id
 * would be dropped), and a team lists a user once.
 */
type Collections = Record<
  "users" | "labels" | "fields" | "projects" | "milestones" | "tasks" | "comments" | "relations" | "links" | "attachments" | "worklogs",
  Array<{ id: string }>
> & {
  teams: Array<{ id: string; members: Array<{ userId: string }> }>;
};
function uniqueIds(data: Collections, ctx: z.RefinementCtx) {
  const seen = new Map<string, string>();
  const records = (
    ["labels", "fields", "teams", "projects", "milestones", "tasks", "comments", "relations", "links", "attachments", "worklogs"] as const
  ).flatMap((list) => data[list].map((record, i) => [record.id, `${list}.${i}`] as const));
  const users = data.users.map((u, i) => [`user ${u.id}`, `users.${i}`] as const);
  for (const [id, at] of [...records, ...users]) {
    const first = seen.get(id);
    if (first)
      ctx.addIssue({ code: "custom", path: [...at.split("."), "id"], message: `Another record of the export (${first}) has this id` });
    else seen.set(id, at);
  }
  for (const [t, team] of data.teams.entries()) {
    const members = new Set<string>();
    for (const [m, member] of team.members.entries()) {
      if (members.has(member.userId))
        ctx.addIssue({ code: "custom", path: ["teams", t, "members", m, "userId"], message: "The team lists this user twice" });
      members.add(member.userId);
    }
  }
}

/** Everything an export holds besides its root record; a task export has no teams, projects or milestones of its own. */
const collections = {
  users: z.array(ExportUser),
  labels: z.array(ExportLabel),
  fields: z.array(ExportField),
  teams: z.array(ExportTeam),
  projects: z.array(ExportProject),
  milestones: z.array(ExportMilestone),
  tasks: z.array(ExportTask),
  comments: z.array(ExportComment),
  // Absent from documents exported before relations travelled: none.
  relations: z
    .array(ExportRelation)
    .default([])
    .openapi({ description: "The relations among the export's tasks (both tasks in it), as stored" }),
  // Absent from documents exported before links travelled: none.
  links: z.array(ExportLink).default([]).openapi({ description: "The links of the export's tasks" }),
  // Accepted and not restored by an import (the bytes are not in the document: `pm import --files` uploads them).
  attachments: z
    .array(ExportAttachment)
    .default([])
    .openapi({ description: "The files of the export's tasks and their comments; an import skips them (docs/api.md)" }),
  // Absent from documents exported before worklogs travelled: none.
  worklogs: z.array(ExportWorklog).default([]).openapi({ description: "The worklogs of the export's tasks" }),
};
/** The collections of an export, in the order an import plans them. */
export const EXPORT_COLLECTIONS = Object.keys(collections) as Array<keyof typeof collections>;
export type ExportCollection = (typeof EXPORT_COLLECTIONS)[number];
const ExportWorkspace = z
  .object({
    id,
    name: WorkspaceName,
    slug: z.string().max(100),
    members: z.array(z.object({ userId: id, role: z.enum(workspaceRole.enumValues) }).strict()),
  })
  .strict();
/** One record of `collection` (or the workspace) as an import checks it: a part's records are checked again when read back. */
export const exportRecordSchema = (collection: ExportCollection | "workspace"): z.ZodType =>
  collection === "workspace"
    ? ExportWorkspace
    : collection === "relations"
      ? ExportRelation
      : collection === "links"
        ? ExportLink
        : collection === "worklogs"
          ? ExportWorklog
          : collection === "attachments"
            ? ExportAttachment
            : collections[collection].element;

export const ExportData = z
  .object({
    root: id.openapi({ description: "The id of the exported resource, found in its collection (`tasks`, `projects`, `teams`)" }),
    workspace: ExportWorkspace.optional().openapi({ description: "Workspace exports only: the workspace and its members' roles" }),
    ...collections,
  })
  .strict()
  .superRefine(uniqueIds)
  .openapi("ExportData", {
    description:
      "The exported resource and everything under it, as flat lists whose records link by id: a task with its subtasks; a project with its milestones and tasks; a team with its members, projects, milestones and tasks; a workspace with all of it. Comments, the labels and fields the records use and the users they point at come along.",
  });

export const ExportDocument = z
  .object({
    type: z.enum(EXPORT_TYPES),
    version: z.literal(1),
    data: ExportData,
    exportedAt: timestamp.openapi({ description: "When the export was taken" }),
  })
  .strict()
  .openapi("Export");

export const ImportBody = z
  .object({
    data: ExportDocument.openapi({ description: "A document an export answered, whole" }),
    update: z.boolean().default(false).openapi({
      description:
        "false: every record gets a new id and reference; true: records whose id exists in the target are overwritten, the rest created",
      example: false,
    }),
  })
  .strict()
  .openapi("ImportRequest");

export type ExportDocumentDto = z.infer<typeof ExportDocument>;
export type ExportDataDto = z.infer<typeof ExportData>;
export type ImportInput = z.infer<typeof ImportBody>;
