// The TaskLink record (docs/api.md, "Links"): a URL on a task with an optional title, stored as given (normalized by
// the URL parser) and never fetched by the service. Its one field map gives the answer, the list, what a task embeds
// (`fields=links{…}`), what its events carry and what an export holds; LinkUrl is the one rule a create and an import
// check a URL with.
import { z } from "@hono/zod-openapi";
import { type SQLWrapper, sql } from "drizzle-orm";
import { taskLinks } from "../../../drizzle/schema";
import { idKind, named } from "../../records/names";
import { defineRecord, f } from "../../store/field-map";
import { BodyId, ExportTimestamp, NOT_PLAIN, PLAIN_MESSAGE } from "../../store/schemas";

/** How a request names a link: by its id (`lnk_…`) only. */
export const LINK_ID = idKind("a link id", "lnk");

export const MAX_LINK_URL = 2048;
const MAX_LINK_TITLE = 500;

/** The URL as stored and compared: the WHATWG parser's form (`HTTPS://Example.com` is `https://example.com/`). */
export const normalizedUrl = (url: string): string => new URL(url).href;

const httpUrl = (value: string) => URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol);

/** A link's URL: http or https, at most 2,048 characters as sent and as stored. */
export const LinkUrl = z
  .string()
  .max(MAX_LINK_URL, `Must be at most ${MAX_LINK_URL.toLocaleString("en")} characters`)
  .refine(httpUrl, "Must be an http or https URL")
  .refine(
    (v) => !httpUrl(v) || normalizedUrl(v).length <= MAX_LINK_URL,
    `Must be at most ${MAX_LINK_URL.toLocaleString("en")} characters once encoded`,
  )
  .openapi({
    format: "uri",
    description: "An http or https URL, at most 2,048 characters; never fetched",
    example: "https://github.com/acme/api/pull/42",
  });
/** A link's title, as a create takes it and an export carries it: it reads as it is, as a file name must. */
const LinkTitle = z
  .string()
  .trim()
  .min(1)
  .max(MAX_LINK_TITLE)
  .refine((s) => !NOT_PLAIN.test(s), `Must be a title: ${PLAIN_MESSAGE}`)
  .nullable();

export const linkRecord = defineRecord({
  name: "TaskLink",
  resource: "task-links",
  id: taskLinks.id,
  workspace: taskLinks.workspaceId,
  team: taskLinks.teamId,
  from: sql`${taskLinks}`,
  noun: "Link",
  fields: {
    id: f.id(taskLinks.id, { names: named(LINK_ID), exported: BodyId, doc: { example: "lnk_01jz8x4q0be0sv3c5kq9v1y2ab" } }),
    taskId: f.id(taskLinks.taskId, { names: named("task"), list: false, exported: BodyId }),
    url: f.text(taskLinks.url, { list: { sort: false }, exported: LinkUrl }),
    title: f.text(taskLinks.title, { nullable: true, list: { sort: false }, exported: LinkTitle }),
    createdBy: f.id(taskLinks.createdBy, {
      nullable: true,
      list: false,
      exported: BodyId.nullable(),
      doc: { description: "The user who added it (null once removed)" },
    }),
    createdAt: f.datetime(taskLinks.createdAt, { exported: ExportTimestamp }),
  },
});
export const TaskLink = linkRecord.schema;
export type TaskLinkDto = z.infer<typeof TaskLink>;
export const TaskLinkSelection = linkRecord.selection;

export const TaskLinkCreate = z
  .object({
    url: LinkUrl,
    title: LinkTitle.optional().openapi({
      description: "What the link is, 1..500 characters, no control or direction-override characters",
    }),
  })
  .strict()
  .openapi("TaskLinkCreate");
export type TaskLinkCreateInput = z.infer<typeof TaskLinkCreate>;

/** An exported link as an import reads it. */
export type ExportedLink = { id: string; taskId: string; url: string; title: string | null; createdBy: string | null; createdAt: string };

/** `fields=links{…}`: the task's links, oldest first (task_links_task_idx), in the statement that reads the task. */
export const linksJson = (taskId: SQLWrapper) =>
  sql`(select coalesce(json_agg(${linkRecord.json()} order by ${taskLinks.createdAt}, ${taskLinks.id}), '[]'::json)
    from ${taskLinks} where ${taskLinks.taskId} = ${taskId})`;
