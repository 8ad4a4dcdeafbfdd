// The account page's session (docs/clients.md, "Your account page"): one cookie, a value signed by the service
// (auth/jwt.ts sealState, purpose `account-session`), HttpOnly, Secure on https, SameSite=Strict, Path=/account, 30
// minutes from when it was made. Before sign-in it holds only the CSRF token of the page's forms; after, the person too.
// Every form carries the token in a hidden field and a POST whose field does not match its cookie's is refused (403):
// another site can neither read the cookie nor send it (SameSite), nor know the token.
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { openState, sealState } from "../../auth/jwt";
import { randomToken, timingSafeEqual } from "../../core/crypto";
import type { AppEnv } from "../../http/context";

type C = Context<AppEnv>;

const COOKIE = "pm_account";
const PURPOSE = "account-session";
const PATH = "/account";
/** How long a session lasts, signed in or not: short, as the page can revoke every credential of the person. */
export const SESSION_TTL_SECONDS = 30 * 60;

export interface Session {
  /** What every form of the page carries back. */
  csrf: string;
  /** The signed-in person; absent before the emailed code. */
  person?: { id: string; email: string };
  /** When the session ends (ms since the epoch). */
  expiresAt: number;
}

/** The request's session, or null (no cookie, forged, or expired). */
export async function readSession(c: C): Promise<Session | null> {
  const value = getCookie(c, COOKIE);
  const payload = value ? await openState(c.env, PURPOSE, value) : null;
  if (!payload || typeof payload.csrf !== "string" || typeof payload.exp !== "number") return null;
  const person =
    typeof payload.sub === "string" && typeof payload.email === "string" ? { id: payload.sub, email: payload.email } : undefined;
  return { csrf: payload.csrf, person, expiresAt: payload.exp * 1000 };
}

/** Starts a session (for `person` once they signed in) with a new CSRF token, as the answer's cookie. */
export async function startSession(c: C, person?: { id: string; email: string }): Promise<Session> {
  const csrf = randomToken(32);
  const payload = person ? { csrf, sub: person.id, email: person.email } : { csrf };
  const value = await sealState(c.env, PURPOSE, payload, SESSION_TTL_SECONDS);
  setCookie(c, COOKIE, value, {
    path: PATH,
    httpOnly: true,
    secure: new URL(c.req.url).protocol === "https:",
    sameSite: "Strict",
    maxAge: SESSION_TTL_SECONDS,
  });
  return { csrf, person, expiresAt: Date.now() + SESSION_TTL_SECONDS * 1000 };
}

/** Whether a form's token is its session's. */
export const csrfMatches = (session: Session | null, token: unknown): session is Session =>
  session !== null && typeof token === "string" && token.length > 0 && timingSafeEqual(token, session.csrf);
