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

/** Step 2: the emailed code, then approve or deny. */
export function confirmPage(opts: {
  userCode: string;
  loginToken: string;
  clientName: string | null;
  scopes: string[] | null;
  workspaceSlug?: string;
  errors?: string[];
}) {
  return layout(
    "Approve this device?",
    html`<p>${opts.clientName ? html`<b>${opts.clientName}</b>` : "A device"} with code <span class="code">${opts.userCode}</span>
asks for access to your account. If an account exists for the address you gave, we have emailed it a 6-digit code.</p>
${asks(opts.scopes)}
${errors(opts.errors ?? [])}
<form method="post" action="/device/confirm">
<input type="hidden" name="user_code" value="${opts.userCode}">
<input type="hidden" name="login_token" value="${opts.loginToken}">
<label for="code">Code from the email</label>
<input id="code" name="code" class="code" required inputmode="numeric" autocomplete="one-time-code" maxlength="6">
<label for="workspace_slug">Workspace (optional; default: your first workspace)</label>
<input id="workspace_slug" name="workspace_slug" autocomplete="off" value="${opts.workspaceSlug ?? ""}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

/** The end of the flow, or a dead end (expired code) with a way back to the start. */
export function messagePage(title: string, message: string, opts: { restart?: boolean } = {}) {
  return layout(title, html`<p>${message}</p>${opts.restart ? html`<p><a href="/device">Start again</a></p>` : ""}`);
}
