// Attachments as one module (src/http/module.ts): their register entry, routes (uploads under a task or comment,
// downloads, deletes), MCP tool and the bench's references for them. Their bytes live in storage (src/files/).
import { z } from "@hono/zod-openapi";
import type { ResourceModule } from "../../http/module";
import { Pagination } from "../../http/route-schemas";
import { Cursor, pageQuery, tool } from "../../http/tool";
import { NameOf } from "../../records/names";
import { listBody } from "../../store/list";
import { fileBenchRoutes } from "./bench";
import { listAttachments } from "./operations";
import { type AttachmentDto, attachmentRecord, contentPath } from "./record";
import register from "./register";
import { attachmentRoutes } from "./routes";
import { attachmentsPart } from "./transfer";

export default {
  name: "attachments",
  resource: register,
  eventRecords: { attachment: attachmentRecord.fields },
  routes: [attachmentRoutes, fileBenchRoutes],
  transfer: attachmentsPart,
  tools: [
    tool({
      name: "list_attachments",
      rank: 110,
      title: "Task files",
      description: "Files of a task and its comments (GET /tasks/{id}/attachments); GET `path` downloads.",
      rest: "GET /tasks/{id}/attachments",
      input: z.object({ id: NameOf("task"), cursor: Cursor }).strict(),
      output: z.object({
        attachments: z.array(z.object({ id: z.string(), filename: z.string(), size: z.number(), path: z.string() })),
        pagination: Pagination,
      }),
      async run(ctx, { id, cursor }) {
        const params = await ctx.caller.listParams(attachmentRecord.list, pageQuery({ cursor }));
        const page = await listBody("attachments", params, await listAttachments(ctx.caller, id, params));
        const attachments = (page.attachments as AttachmentDto[]).map((a) => ({
          id: a.id,
          filename: a.filename,
          size: a.size,
          path: contentPath(a.id),
        }));
        return { attachments, pagination: page.pagination };
      },
    }),
  ],
} satisfies ResourceModule;
