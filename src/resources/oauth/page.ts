// The consent page of /oauth/authorize, in the device page's style: who asks (its name marked unverified), a sign-in by
// emailed code, then the workspace, the scopes and the teams, which the person may narrow. The authorization request
// and the sign-in travel between steps in signed hidden fields (`request`, `session`). Deny is on every step.
import { html } from "hono/html";
import { SCOPE_WORDS, type Scope } from "../../core/scopes";
import { asks, errors, layout } from "../../http/html-page";

export interface ClientShown {
  name: string;
  /** The host of a metadata document's URL (its client_id): that much is verified by fetching it. */
  documentHost: string | null;
  /** Where the answer goes. */
  redirectHost: string;
}

const who = (client: ClientShown) =>
  html`<p><b>${client.name}</b> <span class="note">(name not verified${client.documentHost ? html`; described by <b>${client.documentHost}</b>` : ""})</span>
asks for access to your account. You will be sent back to <b>${client.redirectHost}</b>.</p>`;

const deny = html`<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>`;

/** Step 1: the email address to send a sign-in code to. */
export function signInPage(opts: { request: string; client: ClientShown; scopes: Scope[] | null; email?: string; errors?: string[] }) {
  return layout(
    "Connect an app",
    html`${who(opts.client)}
${asks(opts.scopes)}
${errors(opts.errors ?? [])}
<form method="post" action="/oauth/authorize">
<input type="hidden" name="request" value="${opts.request}">
<label for="email">Your email; we will email you a sign-in code</label>
<input id="email" name="email" type="email" autocomplete="email" value="${opts.email ?? ""}">
<button type="submit" name="decision" value="continue">Continue</button>
${deny}
</form>`,
  );
}

/** Step 2: the emailed code. */
export function codePage(opts: { request: string; client: ClientShown; loginToken: string; errors?: string[] }) {
  return layout(
    "Connect an app",
    html`${who(opts.client)}
<p>If an account exists for the address you gave, we have emailed it a 6-digit code.</p>
${errors(opts.errors ?? [])}
<form method="post" action="/oauth/authorize/signin">
<input type="hidden" name="request" value="${opts.request}">
<input type="hidden" name="login_token" value="${opts.loginToken}">
<label for="code">Code from the email</label>
<input id="code" name="code" class="code" inputmode="numeric" autocomplete="one-time-code" maxlength="6">
<button type="submit" name="decision" value="continue">Continue</button>
${deny}
</form>`,
  );
}

export interface ConsentView {
  request: string;
  session: string;
  client: ClientShown;
  email: string;
  workspaces: Array<{ id: string; name: string; slug: string }>;
  workspaceId: string;
  teams: Array<{ id: string; name: string; prefix: string }>;
  /** What the client asked for (every scope when it named none), and what is ticked. */
  asked: Scope[];
  ticked: Scope[];
  /** The ticked teams; null: every team. */
  tickedTeams: string[] | null;
  errors?: string[];
}

/** Step 3: the workspace (a choice when several), the scopes and the teams, then Approve or Deny. */
export function consentPage(v: ConsentView) {
  const several = v.workspaces.length > 1;
  const workspace = v.workspaces.find((w) => w.id === v.workspaceId)!;
  return layout(
    "Approve this app?",
    html`${who(v.client)}
<p>Signed in as <b>${v.email}</b>. Untick what it should not get.</p>
${errors(v.errors ?? [])}
<form method="post" action="/oauth/authorize/consent">
<input type="hidden" name="request" value="${v.request}">
<input type="hidden" name="session" value="${v.session}">
${
  several
    ? html`<label for="workspace_id">Workspace</label>
<select id="workspace_id" name="workspace_id">${v.workspaces.map(
        (w) => html`<option value="${w.id}"${w.id === v.workspaceId ? " selected" : ""}>${w.name} (${w.slug})</option>`,
      )}</select>
<button type="submit" name="decision" value="switch" formnovalidate>Show this workspace</button>`
    : html`<p>Workspace: <b>${workspace.name}</b> (${workspace.slug})</p><input type="hidden" name="workspace_id" value="${v.workspaceId}">`
}
<fieldset><legend>It may</legend>
${v.asked.map(
  (s) =>
    html`<label><input type="checkbox" name="scope" value="${s}"${v.ticked.includes(s) ? " checked" : ""}> ${SCOPE_WORDS[s]} <code>${s}</code></label>`,
)}
</fieldset>
<fieldset><legend>In the teams of ${workspace.name}</legend>
<label><input type="radio" name="teams" value="all"${v.tickedTeams === null ? " checked" : ""}> every team, also those made later</label>
<label><input type="radio" name="teams" value="some"${v.tickedTeams !== null ? " checked" : ""}> only these:</label>
${v.teams.map(
  (t) =>
    html`<label><input type="checkbox" name="team_id" value="${t.id}"${v.tickedTeams?.includes(t.id) ? " checked" : ""}> ${t.name} (${t.prefix})</label>`,
)}
</fieldset>
<p class="note">Within your role: it can never do more than you can. You can revoke it any time on <a href="/account">your account page</a>.</p>
<button type="submit" name="decision" value="approve">Approve</button>
${deny}
</form>`,
  );
}

/** The end of the flow, or a dead end (an unknown client, an expired request) the person can only start again from the app. */
export const messagePage = (title: string, message: string) => layout(title, html`<p>${message}</p>`);
