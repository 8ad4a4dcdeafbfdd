// The verification page of the device flow: plain server-rendered forms, no script, no cookies. Its state
// between steps (the user code and the login token) travels in hidden fields. `html` escapes every value
// interpolated into it.
import { html } from "hono/html";
import { asks, errors, layout, pageHeaders } from "../../http/html-page";

/** No framing, no scripts, forms post only back here. */
export const PAGE_HEADERS = pageHeaders();

/** Step 1: the code shown on the device and the person's email address. */
export function enterCodePage(opts: { userCode?: string; email?: string; errors?: string[] }) {
  return layout(
    "Connect a device",
    html`<p>Enter the code your device shows and your email address. We will email you a sign-in code.</p>
${errors(opts.errors ?? [])}
<form method="post" action="/device">
<label for="user_code">Device code</label>
<input id="user_code" name="user_code" class="code" required autocomplete="off" placeholder="ABCD-EFGH" value="${opts.userCode ?? ""}">
<label for="email">Email</label>
<input id="email" name="email" type="email" required autocomplete="email" value="${opts.email ?? ""}">
<button type="submit">Continue</button>
</form>`,
  );
}

/** Step 2: the emailed code; then the workspace (step 3), or Deny at once. */
export function confirmPage(opts: {
  userCode: string;
  loginToken: string;
  clientName: string | null;
  scopes: string[] | null;
  errors?: string[];
}) {
  return layout(
    "Approve this device?",
    html`${who(opts)}
<p>If an account exists for the address you gave, we have emailed it a 6-digit code.</p>
${asks(opts.scopes)}
${errors(opts.errors ?? [])}
<form method="post" action="/device/confirm">
<input type="hidden" name="user_code" value="${opts.userCode}">
<input type="hidden" name="login_token" value="${opts.loginToken}">
<label for="code">Code from the email</label>
<input id="code" name="code" class="code" required inputmode="numeric" autocomplete="one-time-code" maxlength="6">
<button type="submit" name="decision" value="continue">Continue</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

const who = (opts: { clientName: string | null; userCode: string }) =>
  html`<p>${opts.clientName ? html`<b>${opts.clientName}</b>` : "A device"} with code <span class="code">${opts.userCode}</span>
asks for access to your account.</p>`;

/** Step 3, signed in: the workspace the device gets (a choice when several, as on the consent page), then Approve or Deny. */
export function workspacePage(opts: {
  userCode: string;
  session: string;
  clientName: string | null;
  email: string;
  workspaces: Array<{ id: string; name: string; slug: string }>;
  workspaceId?: string;
  errors?: string[];
}) {
  const [first] = opts.workspaces;
  return layout(
    "Approve this device?",
    html`${who(opts)}
<p>Signed in as <b>${opts.email}</b>.</p>
${errors(opts.errors ?? [])}
<form method="post" action="/device/decide">
<input type="hidden" name="user_code" value="${opts.userCode}">
<input type="hidden" name="session" value="${opts.session}">
${
  opts.workspaces.length > 1
    ? html`<label for="workspace_id">Workspace</label>
<select id="workspace_id" name="workspace_id">${opts.workspaces.map(
        (w) => html`<option value="${w.id}"${w.id === opts.workspaceId ? " selected" : ""}>${w.name} (${w.slug})</option>`,
      )}</select>`
    : html`<p>Workspace: <b>${first.name}</b> (${first.slug})</p><input type="hidden" name="workspace_id" value="${first.id}">`
}
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

/** The end of the flow, or a dead end (expired code) with a way back to the start. */
export function messagePage(title: string, message: string, opts: { restart?: boolean } = {}) {
  return layout(title, html`<p>${message}</p>${opts.restart ? html`<p><a href="/device">Start again</a></p>` : ""}`);
}
