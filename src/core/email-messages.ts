/** What the API puts on the email queue; the consumer renders and delivers it. */
export type EmailMessage =
  | { id: string; to: string; template: "signup_code"; data: { code: string } }
  | { id: string; to: string; template: "login_code"; data: { code: string } }
  | {
      id: string;
      to: string;
      template: "invite";
      data: { token: string; workspaceName: string; invitedBy: string; redeemUrl: string };
    }
  | {
      id: string;
      to: string;
      template: "notification";
      data: { type: string; actor: string | null; reference: string; title: string; url: string; comment: string | null };
    }
  | { id: string; to: string; template: "webhook_disabled"; data: { webhookId: string; url: string; reason: string } };

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}
