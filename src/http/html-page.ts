// The server-rendered pages a person sees (the device flow's verification page, the OAuth consent page, the account
// page): plain forms, no script; only the account page keeps a cookie (its session). `html` escapes every value interpolated into them.
import { z } from "@hono/zod-openapi";
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { SCOPE_WORDS, SCOPES } from "../core/scopes";
import { ErrorBody, ValidationErrorBody } from "./openapi";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * No framing (an approve button must not be clickjacked), no scripts, forms post only back here, or (`formTarget`) to
 * where the answer of a form redirects: browsers hold a form's redirect to the page's form-action.
 */
export const pageHeaders = (formTarget?: string): Record<string, string> => ({
  "content-security-policy": `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'${formTarget ? ` ${formTarget}` : ""}; frame-ancestors 'none'; base-uri 'none'`,
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
});

export const layout = (title: string, body: Html) => html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}
label{display:block;margin:1rem 0 .25rem}input{font-size:1.1rem;padding:.4rem;width:100%;box-sizing:border-box}
button{font-size:1rem;padding:.5rem 1rem;margin:1rem .5rem 0 0}.error{color:#a00;border-left:3px solid #a00;padding-left:.5rem}
.code{font-family:monospace;font-size:1.4rem;letter-spacing:.1em}
fieldset{border:1px solid #ccc;margin:1rem 0}fieldset label{display:flex;gap:.5rem;align-items:center;margin:.25rem 0}
fieldset input,select{width:auto;font-size:1rem}.note{color:#666;font-size:.9rem}
h2{margin-top:2rem;border-bottom:1px solid #ddd}h3{font-size:1rem;margin:1rem 0 .25rem}.meta{color:#666;font-size:.85rem;font-weight:normal}
ul.items{list-style:none;padding:0;margin:0}ul.items li{display:flex;justify-content:space-between;align-items:center;gap:1rem;border:1px solid #ddd;border-radius:4px;padding:.5rem .75rem;margin:.5rem 0}
ul.items button{margin:0}.notice{color:#060;border-left:3px solid #060;padding-left:.5rem}
</style>
</head>
<body>
<h1>${title}</h1>
${body}
</body>
</html>`;

export const errors = (messages: string[]) =>
  messages.length ? html`${messages.map((m) => html`<p class="error" role="alert">${m}</p>`)}` : "";

/** What a client asks to do, in words (every scope when it named none). */
export function asks(scopes: readonly string[] | null) {
  const names = scopes === null ? SCOPES : SCOPES.filter((s) => scopes.includes(s));
  const all = names.length === SCOPES.length;
  return html`<p>${all ? "It asks for full access, within your role, to" : "It asks only to"}:</p>
<ul class="scopes">${names.map((s) => html`<li>${SCOPE_WORDS[s]} <code>${s}</code></li>`)}</ul>`;
}

/** A page's answer in the OpenAPI document. */
export const htmlResponse = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });

/**
 * A page's refusal, or the API's (JSON) when the middleware refuses the request before the page (a malformed or reused
 * Idempotency-Key: 400, 422).
 */
export const htmlOrApiError = (description: string) => ({
  description: `${description}; a refusal before the page (e.g. a malformed or reused Idempotency-Key) is the API's error body`,
  content: { "text/html": { schema: z.string() }, "application/json": { schema: z.union([ErrorBody, ValidationErrorBody]) } },
});

/** A page's form in the OpenAPI document (the handler checks it, so that a bad form is answered with a page). */
export const formBody = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { "application/x-www-form-urlencoded": { schema } } },
});
