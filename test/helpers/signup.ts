import { expect } from "vitest";
import { eventually, get, post } from "./api";

/** The newest mail to an address, once the queue consumer has delivered it. */
export async function mailTo(email: string, count = 1) {
  const res = await eventually(async () => {
    const r = await get(`/_dev/mailbox?to=${encodeURIComponent(email)}`);
    return r.body.messages.length >= count ? r : undefined;
  });
  return res.body.messages[0] as { id: string; to: string; subject: string; text: string; html: string; createdAt: string };
}

export const codeIn = (mail: { text: string }) => /\b(\d{6})\b/.exec(mail.text)![1];

/** Starts a sign-up and returns the token and the code read from the dev mailbox. */
export async function startSignup(email: string) {
  const res = await post("/signup/start", { email });
  expect(res.status).toBe(200);
  const token = res.body.data.signup_token as string;
  return { token, code: codeIn(await mailTo(email)) };
}
