import type { Env } from "../env";

/** The service's public base URL for links sent to people (emails, device flow): PUBLIC_BASE_URL, else this request's origin. */
export const publicBaseUrl = (c: { env: Pick<Env, "PUBLIC_BASE_URL">; req: { url: string } }) =>
  (c.env.PUBLIC_BASE_URL ?? new URL(c.req.url).origin).replace(/\/+$/, "");

/**
 * The import routes (POST /teams/{id}/import, /workspaces/import; an import's parts and its commit): a larger body limit,
 * and their writes' events say `import`.
 */
export const IMPORT_PATH = /^\/((teams\/[^/]+|workspaces)\/import|imports\/[^/]+\/(parts\/[^/]+|commit))$/;

/** The routes that make an account or a membership before any credential exists (a sign-up, an invite redeemed): their writes' events say `sign_up`. */
export const SIGN_UP_PATH = /^\/(signup\/complete|invites\/redeem)$/;

/** The export routes (GET /{tasks|projects|teams|workspaces}/{id}/export, or its template): no ETag (each export is new, and a large one streams). */
export const EXPORT_PATH = /^\/(tasks|projects|teams|workspaces)\/[^/]+\/export$/;

/**
 * The attachment uploads (POST /tasks/{id}/attachments, /comments/{id}/attachments): raw bytes streamed to storage, so
 * their own size limit, no JSON checks, and no Idempotency-Key (an answer could only be replayed by holding the body).
 * The bench's plain R2 put (`/_bench/files`, dev only) is compared with them, so it streams alike.
 */
export const UPLOAD_PATH = /^\/((tasks|comments)\/[^/]+\/attachments|_bench\/files)$/;
