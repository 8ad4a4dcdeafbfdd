// The account page (docs/clients.md, "Your account page"), in the device and consent pages' style: plain forms, no
// script. Sign-in by emailed code, then the person's credentials per workspace, each with a Revoke button. Every form
// carries the session's CSRF token (./session.ts). `html` escapes every value interpolated into it.
import { html } from "hono/html";
import { SCOPES } from "../../core/scopes";
import { errors, layout } from "../../http/html-page";
import type { Held, Kind, Overview } from "./operations";

const TITLE = "Your account";
const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`;

/** Step 1: the email address to send a sign-in code to. */
export const signInPage = (opts: { csrf: string; email?: string; errors?: string[] }) =>
  layout(
    TITLE,
    html`<p>See and revoke your API keys, your agents' keys, your device logins and the apps you connected.</p>
${errors(opts.errors ?? [])}
<form method="post" action="/account/signin">
${csrfField(opts.csrf)}
<label for="email">Your email; we will email you a sign-in code</label>
<input id="email" name="email" type="email" required autocomplete="email" value="${opts.email ?? ""}">
<button type="submit">Continue</button>
</form>`,
  );

/** Step 2: the emailed code. */
export const codePage = (opts: { csrf: string; loginToken: string; errors?: string[] }) =>
  layout(
    TITLE,
    html`<p>If an account exists for the address you gave, we have emailed it a 6-digit code.</p>
${errors(opts.errors ?? [])}
<form method="post" action="/account/signin/code">
${csrfField(opts.csrf)}
<input type="hidden" name="login_token" value="${opts.loginToken}">
<label for="code">Code from the email</label>
<input id="code" name="code" class="code" required inputmode="numeric" autocomplete="one-time-code" maxlength="6">
<button type="submit">Sign in</button>
</form>
<p><a href="/account">Start again</a></p>`,
  );

const day = (iso: string) => iso.slice(0, 10);
const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
const scopesIn = (scopes: string[]) => (scopes.length >= SCOPES.length ? "every scope" : scopes.join(", "));
const teamsIn = (teamIds: string[] | null) =>
  teamIds === null ? "every team" : `${teamIds.length} team${teamIds.length === 1 ? "" : "s"}`;

function item(csrf: string, kind: Kind, h: Held, what: string) {
  const meta = [
    h.prefix ? `${h.prefix}…` : null,
    `${scopesIn(h.scopes)}, ${teamsIn(h.teamIds)}`,
    `since ${day(h.createdAt)}`,
    h.lastUsedAt ? `last used ${day(h.lastUsedAt)}` : kind === "login" ? null : "never used",
    h.expiresAt ? `${kind === "login" ? "ends unless used by" : "expires"} ${day(h.expiresAt)}` : null,
  ].filter((x) => x !== null);
  return html`<li><div><b>${h.name}</b>${h.agent ? html` <span class="meta">(agent ${h.agent})</span>` : ""}
<div class="meta">${meta.join(" · ")}</div></div>
<form method="post" action="/account/revoke">
${csrfField(csrf)}
<input type="hidden" name="kind" value="${kind}"><input type="hidden" name="workspace_id" value="${h.workspaceId}"><input type="hidden" name="id" value="${h.id}">
<button type="submit" aria-label="Revoke ${what} ${h.name}">Revoke</button>
</form></li>`;
}

function section(csrf: string, title: string, kind: Kind, what: string, list: Held[]) {
  return html`<h3>${title}</h3>
${list.length ? html`<ul class="items">${list.map((h) => item(csrf, kind, h, what))}</ul>` : html`<p class="note">None.</p>`}`;
}

/** The signed-in page: per workspace, the person's keys, their agents' keys, connected apps and device logins. */
export function overviewPage(opts: {
  csrf: string;
  email: string;
  expiresAt: number;
  overview: Overview;
  notice?: string;
  errors?: string[];
}) {
  const { overview: o, csrf } = opts;
  const mine = (list: Held[], id: string) => list.filter((h) => h.workspaceId === id);
  return layout(
    TITLE,
    html`<p>Signed in as <b>${opts.email}</b> until ${when(new Date(opts.expiresAt).toISOString())}.</p>
<form method="post" action="/account/signout">${csrfField(csrf)}<button type="submit">Sign out</button></form>
${opts.notice ? html`<p class="notice" role="status">${opts.notice}</p>` : ""}
${errors(opts.errors ?? [])}
<p class="note">Revoking is at once: the credential is refused from its next request on.</p>
${
  o.workspaces.length
    ? o.workspaces.map((w) => {
        const keys = mine(o.keys, w.id);
        return html`<h2>${w.name} <span class="meta">(${w.slug})</span></h2>
${section(
  csrf,
  "Your API keys",
  "key",
  "API key",
  keys.filter((k) => k.agent === null),
)}
${section(
  csrf,
  "Your agents' keys",
  "key",
  "API key",
  keys.filter((k) => k.agent !== null),
)}
${section(csrf, "Connected apps", "grant", "app", mine(o.grants, w.id))}
${section(csrf, "Device logins", "login", "device login", mine(o.logins, w.id))}`;
      })
    : html`<p>You are not a member of any workspace.</p>`
}`,
  );
}

/** A form that is not this page's (missing or malformed fields): a way back. */
export const messagePage = (title: string, message: string) =>
  layout(title, html`<p>${message}</p><p><a href="/account">Back to your account</a></p>`);
