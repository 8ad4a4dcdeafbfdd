import type { Env } from "../env";

/** The service's public base URL for links sent to people (emails, device flow): PUBLIC_BASE_URL, else this request's origin. */
export const publicBaseUrl = (c: { env: Pick<Env, "PUBLIC_BASE_URL">; req: { url: string } }) =>
  (c.env.PUBLIC_BASE_URL ?? new URL(c.req.url).origin).replace(/\/+$/, "");
