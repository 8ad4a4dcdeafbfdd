// The export document (docs/api.md, export and import): what GET …/export answers and what an import takes back, version 1.
// Records are flat and link by id (`teamId`, `parentId`, `labelIds`, …), so one shape serves every export type. The
// collections hanging on tasks come after the tasks and comments, each from the part its module declares (parts.ts).
import { z } from "@hono/zod-openapi";
import { teamRole, userType, workspaceRole } from "../../../drizzle/schema";
import { BodyId, LongText, ObjectKey } from "../../http/route-schemas";
import { type ExportedField, fieldRecord } from "../../records/fields";
import { EXPORT_TYPES, type ExportType } from "../../store/transfer-part";
import { commentRecord, type ExportedComment } from "../comments/record";
import { type ExportedLabel, labelRecord } from "../labels/record";
import { type ExportedMilestone, milestoneRecord } from "../milestones/record";
import { type ExportedProject, projectRecord } from "../projects/record";
import { type ExportedTask, taskRecord } from "../tasks/record";
import { TeamMember } from "../team-members/record";
import { Team, TeamPrefix } from "../teams/record";
import { WorkspaceName, WorkspaceSchema } from "../workspaces/record";
import type { Parts } from "./parts";

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
/**
 * Every record of an export has an id of its own (the import maps each id to one record; a second record under an id
 * would be dropped), and a team lists a user once.
 */
type Collections = Record<string, Array<{ id: string }>> & { teams: Array<{ id: string; members: Array<{ userId: string }> }> };
function uniqueIds(parts: Parts, data: Collections, ctx: z.RefinementCtx) {
  const seen = new Map<string, string>();
  const records = [
    "labels",
    "fields",
    "teams",
    "projects",
    "milestones",
    "tasks",
    "comments",
    ...parts.all.map((p) => p.collection),
  ].flatMap((list) => data[list].map((record, i) => [record.id, `${list}.${i}`] as const));
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

/** Everything an export holds besides its root record and the parts; a task export has no teams, projects or milestones of its own. */
const collections = {
  users: z.array(ExportUser),
  labels: z.array(ExportLabel),
  fields: z.array(ExportField),
  teams: z.array(ExportTeam),
  projects: z.array(ExportProject),
  milestones: z.array(ExportMilestone),
  tasks: z.array(ExportTask),
  comments: z.array(ExportComment),
};
type Collection = keyof typeof collections;
const COLLECTIONS = Object.keys(collections) as Collection[];
const ExportWorkspace = z
  .object({
    id,
    name: WorkspaceName,
    slug: z.string().max(100),
    members: z.array(z.object({ userId: id, role: z.enum(workspaceRole.enumValues) }).strict()),
  })
  .strict();

/** An export's `data`; the parts' collections are read by name (`recordsOf`). */
export type ExportDataDto = { root: string; workspace?: z.infer<typeof ExportWorkspace> } & {
  [C in Collection]: z.infer<(typeof collections)[C]>;
};
export type ExportDocumentDto = { type: ExportType; version: 1; data: ExportDataDto; exportedAt: string };

/** The records of a checked document's collection, by name (a part's: none in a document from before it travelled). */
export const recordsOf = <T extends { id: string } = { id: string }>(data: ExportDataDto, collection: string): T[] =>
  (data as unknown as Record<string, T[]>)[collection];

/** The export document's schemas for an app whose modules declare `parts`. */
export function documentSchemas(parts: Parts) {
  // Absent from a document exported before a part travelled: none.
  const partCollections = Object.fromEntries(
    parts.all.map((p) => [p.collection, z.array(p.schema).default([]).openapi({ description: p.description })]),
  );
  const ExportData = z
    .object({
      root: id.openapi({ description: "The id of the exported resource, found in its collection (`tasks`, `projects`, `teams`)" }),
      workspace: ExportWorkspace.optional().openapi({ description: "Workspace exports only: the workspace and its members' roles" }),
      ...collections,
      ...partCollections,
    })
    .strict()
    .superRefine((data, ctx) => uniqueIds(parts, data as unknown as Collections, ctx))
    .openapi("ExportData", {
      description:
        "The exported resource and everything under it, as flat lists whose records link by id: a task with its subtasks; a project with its milestones and tasks; a team with its members, projects, milestones and tasks; a workspace with all of it. Comments, the labels and fields the records use and the users they point at come along.",
    }) as unknown as z.ZodType<ExportDataDto>;

  const ExportDocument = z
    .object({
      type: z.enum(EXPORT_TYPES),
      version: z.literal(1),
      data: ExportData,
      exportedAt: timestamp.openapi({ description: "When the export was taken" }),
    })
    .strict()
    .openapi("Export");

  const ImportBody = z
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

  const partSchemas = new Map(parts.all.map((p) => [p.collection, p.schema]));
  return {
    ExportDocument,
    ImportBody,
    ...importAnswers(parts),
    /** The collections of an export, in the order an import plans them. */
    collections: [...COLLECTIONS, ...parts.all.map((p) => p.collection)],
    /** One record of `collection` (or the workspace) as an import checks it: a part's records are checked again when read back. */
    recordSchema(collection: string): z.ZodType {
      if (collection === "workspace") return ExportWorkspace;
      return partSchemas.get(collection) ?? collections[collection as Collection].element;
    },
  };
}

/** The API's Team, whose `members` in an import's answer are team-member objects (`tmbr_…` ids) rather than list items. */
const ImportedTeam = z.object({ ...Team.shape, members: z.array(TeamMember) }).openapi("ImportedTeam");

const byExportId = (what: string) =>
  z.record(z.string(), z.string()).openapi({ description: `Each ${what}'s id in the document → its id here`, example: {} });

/** An import's answers, and its rules as the import routes describe them (the filed parts' included). */
function importAnswers(parts: Parts) {
  const answer = parts.filed.map((p) => p.import.filed.answer).join(" ");
  /** Beside an import's answer: where the records that the document's filed records hang on went (plan.ts `Placed`). */
  const ImportedIds = z
    .object({ tasks: byExportId("filed task"), comments: byExportId("filed comment") })
    .openapi("ImportedIds", answer ? { description: answer } : {});
  return {
    TeamImported: z.object({ imported: ImportedTeam, ids: ImportedIds }).openapi("TeamImported"),
    WorkspaceImported: z.object({ workspace: WorkspaceSchema, ids: ImportedIds }).openapi("WorkspaceImported"),
    importRules:
      "One transaction: a payload that fails validation (422, keyed by the JSON path of each bad value, e.g. `data.data.tasks.3.status`) or any later error writes nothing. " +
      "Users map to the workspace's member with the same id or email, else an assignee or lead is cleared and a comment's author becomes the caller; " +
      "labels map by name (by id with `update`), fields by key; missing ones are created (new fields need workspace ADMIN/OWNER). " +
      `Links to records outside the export (a subtask's parent) are dropped. ${parts.filed.map((p) => `${p.import.filed.rule} `).join("")}Bodies up to 32 MiB.`,
  };
}

export type DocumentSchemas = ReturnType<typeof documentSchemas>;
