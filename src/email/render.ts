import type { EmailMessage, RenderedEmail } from "../core/email-messages";

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch);

const page = (title: string, body: string) =>
  `<!doctype html><html><body style="font-family:sans-serif"><h1>${escapeHtml(title)}</h1>${body}</body></html>`;

/** What a notification's email says happened. */
const NOTICE: Record<string, string> = {
  mentioned: "mentioned you in",
  assigned: "assigned you",
  delegated: "delegated",
  commented: "commented on",
  status_changed: "changed the status of",
};

/** Text and HTML for each template. */
export function renderEmail(message: EmailMessage): RenderedEmail {
  switch (message.template) {
    case "signup_code":
    case "login_code": {
      const what = message.template === "signup_code" ? "sign-up" : "sign-in";
      const { code } = message.data;
      return {
        subject: `Your ${what} code: ${code}`,
        text: `Your ${what} code is ${code}.\nIt expires in 15 minutes. If you did not ask for it, ignore this email.\n`,
        html: page(
          `Your ${what} code`,
          `<p style="font-size:2em;letter-spacing:.2em"><b>${code}</b></p><p>It expires in 15 minutes. If you did not ask for it, ignore this email.</p>`,
        ),
      };
    }
    case "invite": {
      const { workspaceName, invitedBy, token, redeemUrl } = message.data;
      return {
        subject: `${invitedBy} invited you to ${workspaceName}`,
        text: `${invitedBy} invited you to the workspace ${workspaceName}.\nAccept with POST ${redeemUrl} {"token": "${token}", "name": "<your name>"}\nInvite token: ${token}\n`,
        html: page(
          `Join ${workspaceName}`,
          `<p>${escapeHtml(invitedBy)} invited you to the workspace <b>${escapeHtml(workspaceName)}</b>.</p><p>Invite token: <code>${escapeHtml(token)}</code></p><p>Accept with <code>POST ${escapeHtml(redeemUrl)}</code>.</p>`,
        ),
      };
    }
    case "notification": {
      const { type, actor, reference, title, url, comment } = message.data;
      const who = actor ?? "Someone";
      const what = NOTICE[type] ?? "notified you about";
      const quoted = comment ? `\n\n${comment.slice(0, 2000)}\n` : "\n";
      return {
        subject: `${who} ${what} ${reference}: ${title}`,
        text: `${who} ${what} ${reference} (${title}).${quoted}\nOpen it: ${url}\nChange what comes by email with PATCH /users/{id} {"notificationEmail": "off"}.\n`,
        html: page(
          `${reference}: ${title}`,
          `<p>${escapeHtml(who)} ${escapeHtml(what)} <a href="${escapeHtml(url)}">${escapeHtml(reference)}</a> (${escapeHtml(title)}).</p>${
            comment ? `<blockquote>${escapeHtml(comment.slice(0, 2000))}</blockquote>` : ""
          }<p><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>`,
        ),
      };
    }
    case "webhook_disabled": {
      const { webhookId, url, reason } = message.data;
      return {
        subject: `Webhook disabled: ${url}`,
        text: `The webhook ${webhookId} (${url}) was disabled: ${reason}.\nIts deliveries stopped. Fix the receiver, then enable it again with PATCH /webhooks/${webhookId} {"enabled": true}.\n`,
        html: page(
          "Webhook disabled",
          `<p>The webhook <code>${escapeHtml(webhookId)}</code> (<code>${escapeHtml(url)}</code>) was disabled: ${escapeHtml(reason)}.</p><p>Its deliveries stopped. Fix the receiver, then enable it again with <code>PATCH /webhooks/${escapeHtml(webhookId)}</code> <code>{"enabled": true}</code>.</p>`,
        ),
      };
    }
  }
}
