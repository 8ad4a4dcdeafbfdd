// /account (docs/clients.md, "Your account page"): a person signs in with an emailed code (the login codes of POST
// /login/start and /login/complete) and sees, per workspace, their API keys, their agents' keys, the apps they
// connected (OAuth grants) and their device logins, each revocable with the API's own operation. Pages, not JSON: every
// answer is HTML, with the pages' CSP (no script at all) and no-store. A revocation answers 200 with the page, so the
// front Worker records it as a write (docs/edge.md, "Revocation"): nothing stored before it is served there.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { normalizeEmail } from "../../auth/accounts/codes";
import { completeLoginWith, startLogin } from "../../auth/accounts/login";
import { AppError, ValidationError } from "../../core/errors";
import type { AppEnv } from "../../http/context";
import { emailOutbox } from "../../http/email-outbox";
import { formBody, type Html, htmlOrApiError, htmlResponse, pageHeaders } from "../../http/html-page";
import { publicRoute } from "../../http/route-base";
import { newRouter } from "../../http/router";
import { accountOverview, type Kind, REVOKE, revoke } from "./operations";
import { codePage, messagePage, overviewPage, signInPage } from "./page";
import { csrfMatches, readSession, type Session, startSession } from "./session";

type C = Context<AppEnv>;
const TAG = "Account";
const HEADERS = pageHeaders();

const render = async (c: C, page: Html, status: ContentfulStatusCode = 200) => c.html(await page, status, HEADERS);

const Csrf = z.string().max(100);
const SignIn = z.object({ csrf: Csrf, email: z.string().max(320) }).strict();
const Code = z.object({ csrf: Csrf, login_token: z.string().max(200), code: z.string().max(32) }).strict();
const Revoke = z
  .object({
    csrf: Csrf,
    kind: z.enum(Object.keys(REVOKE) as [Kind, ...Kind[]]),
    workspace_id: z.string().min(1).max(100),
    id: z.string().min(1).max(100),
  })
  .strict();
const SignOut = z.object({ csrf: Csrf }).strict();

/**
 * A form of this page: its session, once the form's `csrf` field is the session's token, and its fields, checked here so
 * that a bad form is answered with a page (null when they are not this form's).
 */
async function formOf<T extends z.ZodType>(
  c: C,
  schema: T,
): Promise<{ session: Session | null; form: z.infer<T> | null; trusted: boolean }> {
  const session = await readSession(c);
  const typed = /application\/x-www-form-urlencoded|multipart\/form-data/i.test(c.req.header("content-type") ?? "");
  const body = typed ? await c.req.parseBody().catch(() => undefined) : undefined;
  const parsed = schema.safeParse(body);
  return { session, form: parsed.success ? parsed.data : null, trusted: csrfMatches(session, body?.csrf) };
}

/**
 * A form without its session's token (another site's, or one whose session expired): 403, and the page again. A
 * session the request carries stays as it is (a forged form must not sign anyone out); without one, a new one.
 */
async function refuseForm(c: C, session: Session | null) {
  const errors = ["This form has expired or did not come from this page."];
  if (session && signedIn(session)) return overview(c, session, { errors }, 403);
  const { csrf } = session ?? (await startSession(c));
  return render(c, signInPage({ csrf, errors }), 403);
}

const incomplete = (c: C) => render(c, messagePage("Something went wrong", "The form was incomplete."), 422);

type SignedIn = Session & { person: NonNullable<Session["person"]> };
const signedIn = (session: Session): session is SignedIn => session.person !== undefined;

/** The page of a signed-in person, as it is now. */
async function overview(c: C, session: SignedIn, extra: { notice?: string; errors?: string[] } = {}, status: ContentfulStatusCode = 200) {
  const { person } = session;
  const data = await accountOverview(c.get("rdb").db, person.id);
  return render(
    c,
    overviewPage({ csrf: session.csrf, email: person.email, expiresAt: session.expiresAt, overview: data, ...extra }),
    status,
  );
}

const NOUN: Record<Kind, string> = { key: "The API key", grant: "The app", login: "The device login" };

// ---- the document: the page's routes, each answering HTML ----

const COOKIE_NOTE =
  "The session is the cookie `pm_account` (HttpOnly, SameSite=Strict, Secure on https, Path=/account, 30 minutes); every form carries its `csrf` token, and a form without its session's token is 403.";

const page = createRoute({
  method: "get",
  operationId: "accountPage",
  path: "/account",
  ...publicRoute(TAG),
  summary: "Account page (HTML): sign in by emailed code, then see and revoke your credentials",
  description: `Signed in: per workspace, your API keys, your agents' keys, the apps you connected (OAuth grants) and your device logins, each with a Revoke button. Otherwise the sign-in form. ${COOKIE_NOTE}`,
  responses: { 200: htmlResponse("The page") },
});
const steps = [
  ["accountSignIn", "/account/signin", SignIn, "step 1: emails a sign-in code", "The same login codes as POST /login/start."],
  [
    "accountSignInCode",
    "/account/signin/code",
    Code,
    "step 2: the emailed code signs in",
    "The same login codes as POST /login/complete; the code is used up. Answers the signed-in page with a new session cookie.",
  ],
  [
    "accountRevoke",
    "/account/revoke",
    Revoke,
    "revokes one of your credentials",
    "`kind` `key` (yours or an agent's: DELETE /api-keys/{id}), `grant` (a connected app: DELETE /oauth/grants/{id}) or `login` (a device login: as POST /auth/revoke), of `workspace_id`; revoked at once. Any other credential is 404.",
  ],
  ["accountSignOut", "/account/signout", SignOut, "signs out", "The session ends; the sign-in form."],
] as const;
const stepRoutes = steps.map(([operationId, path, schema, what, description]) =>
  createRoute({
    method: "post",
    operationId,
    path,
    ...publicRoute(TAG),
    summary: `Account page (HTML), ${what}`,
    description: `${description} ${COOKIE_NOTE}`,
    request: formBody(schema),
    responses: {
      200: htmlResponse("The next page"),
      401: htmlResponse("Not signed in: the sign-in form"),
      400: htmlOrApiError("Refused before the page"),
      403: htmlResponse("The form's CSRF token is not its session's"),
      404: htmlResponse("Not one of your credentials"),
      422: htmlOrApiError("Invalid input"),
    },
  }),
);

export const accountRoutes = newRouter();
for (const route of [page, ...stepRoutes]) accountRoutes.openAPIRegistry.registerPath(route);

accountRoutes.get("/account", async (c) => {
  const session = (await readSession(c)) ?? (await startSession(c));
  if (signedIn(session)) return overview(c, session);
  return render(c, signInPage({ csrf: session.csrf }));
});

accountRoutes.post("/account/signin", async (c) => {
  const { session, form, trusted } = await formOf(c, SignIn);
  if (!trusted || !session) return refuseForm(c, session);
  if (!form) return incomplete(c);
  const email = form.email.trim();
  if (!z.email().safeParse(email).success) {
    return render(c, signInPage({ csrf: session.csrf, email, errors: ["Enter a valid email address."] }), 422);
  }
  const loginToken = await startLogin(c.get("rdb").db, emailOutbox(c), normalizeEmail(email));
  return render(c, codePage({ csrf: session.csrf, loginToken }));
});

accountRoutes.post("/account/signin/code", async (c) => {
  const { session, form, trusted } = await formOf(c, Code);
  if (!trusted || !session) return refuseForm(c, session);
  if (!form) return incomplete(c);
  const again = (errors: string[]) => render(c, codePage({ csrf: session.csrf, loginToken: form.login_token, errors }), 422);
  const code = form.code.trim();
  if (!/^\d{6}$/.test(code)) return again(["Enter the 6-digit code from the email."]);
  try {
    // The login code is used up here; the session (a new one, with a new CSRF token) is the sign-in.
    const { login } = await completeLoginWith(c.get("rdb").db, { login_token: form.login_token, code }, async () => undefined);
    return overview(c, (await startSession(c, { id: login.user.id, email: login.user.email })) as SignedIn);
  } catch (err) {
    if (err instanceof ValidationError) return again(Object.values(err.errors).flat());
    throw err;
  }
});

accountRoutes.post("/account/revoke", async (c) => {
  const { session, form, trusted } = await formOf(c, Revoke);
  if (!trusted || !session) return refuseForm(c, session);
  if (!form) return incomplete(c);
  if (!signedIn(session)) return render(c, signInPage({ csrf: session.csrf, errors: ["Sign in first."] }), 401);
  const person = { id: session.person.id, expiresAt: session.expiresAt };
  // The events of what it writes (an API key's deletion) say the person did it, signed in by a token of this service.
  // Its attempt stays the request's (src/db/settle.ts): only who and how change.
  const rdb = c.get("rdb");
  rdb.eventContext = {
    actor: person.id,
    via: "jwt",
    requestId: c.get("requestId"),
    attempt: rdb.eventContext?.attempt ?? crypto.randomUUID(),
  };
  try {
    await revoke(c.get("rdb"), c.env, person, { kind: form.kind, workspaceId: form.workspace_id, id: form.id });
  } catch (err) {
    if (err instanceof AppError && err.code === "NOT_FOUND") {
      return overview(c, session, { errors: [`${NOUN[form.kind]} is not one of yours, or was revoked already.`] }, 404);
    }
    throw err;
  }
  return overview(c, session, { notice: `${NOUN[form.kind]} was revoked.` });
});

accountRoutes.post("/account/signout", async (c) => {
  const { session, trusted } = await formOf(c, SignOut);
  if (!trusted || !session) return refuseForm(c, session);
  // The signed-in cookie is replaced by a new one that holds no person.
  const { csrf } = await startSession(c);
  return render(c, signInPage({ csrf }));
});
