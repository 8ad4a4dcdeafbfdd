// `pm login`: the device flow (RFC 8628). The CLI gets a user code, a person approves it in a browser (signing in
// there with an emailed code), and the CLI's polling receives an access token (a JWT) and a refresh token, stored for
// the next commands, which renew the access token with it (cli/tokens.ts): a person logs in once per machine.
// `pm logout` revokes the login on the server and forgets its tokens here (its base URL and workspace stay).
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { defineCommand } from "citty";
import type { PmClient, Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { configFile, forgetLogin, readLogin, type StoredLogin, useLogin } from "../config";
import { ApiError, NotLoggedInError, UsageError } from "../errors";
import { scopeNames } from "../scopes";
import { baseUrlFrom, connect, unwrap } from "../session";
import { loginOf, revokeLogin, type TokenAnswer } from "../tokens";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
/** RFC 8628 §3.5: after `slow_down` the client polls that much more slowly from then on. */
const SLOW_DOWN_STEP_SECONDS = 5;

/**
 * Polls until the person decides or the code expires: the tokens; a denied or expired code as NotLoggedInError, any
 * other refusal as an ApiError.
 */
async function pollForToken(client: PmClient, device: Schemas["DeviceCode"]): Promise<TokenAnswer> {
  let interval = device.interval;
  const deadline = Date.now() + device.expires_in * 1000;
  while (Date.now() + interval * 1000 < deadline) {
    await sleep(interval * 1000);
    const { data, error, response } = await client.POST("/auth/device/token", {
      body: { device_code: device.device_code, grant_type: DEVICE_GRANT },
    });
    if (data) return data as TokenAnswer;
    const refusal = ApiError.fromBody(response.status, error);
    // RFC 8628 §3.5's error codes.
    if (refusal.code === "slow_down") interval += SLOW_DOWN_STEP_SECONDS;
    // A refused login is a credential problem like any other (exit 3), not an API error.
    else if (refusal.code === "access_denied") throw new NotLoggedInError("the login was denied in the browser");
    else if (refusal.code === "expired_token") throw expired();
    else if (refusal.code !== "authorization_pending") throw refusal;
  }
  throw expired();
}

const expired = () => new NotLoggedInError("the code expired before it was approved: run `pm login` again");

/**
 * The device flow up to its tokens: a code, the person told (`say`) where to approve it (`where`: what for, if not
 * plain signing in), the answer polled for; the tokens and their GET /me (whose login, in which workspace).
 */
export async function approvedLogin(baseUrl: string, scope: string | undefined, say: (line: string) => void, where = "To sign in") {
  const client = connect(baseUrl);
  const body = { client_name: `pm CLI on ${hostname()}`, ...(scope ? { scope } : {}) };
  const device = await unwrap(client.POST("/auth/device/code", { body }));
  say(`${where}, open ${device.verification_uri} and enter the code: ${device.user_code}`);
  say(`(or open ${device.verification_uri_complete})`);
  say("Waiting for approval…");
  const token = await pollForToken(client, device);
  const me = await unwrap(connect(baseUrl, { token: token.access_token }).GET("/me"));
  return { token, me };
}

/** Revokes a login this one replaces, so that no forgotten refresh token stays valid; a failure changes nothing here. */
async function revokeReplaced(previous: StoredLogin | undefined): Promise<void> {
  if (!previous?.refreshToken) return;
  await revokeLogin(previous).catch(() => undefined);
}

export const login = defineCommand({
  meta: { name: "pm login", description: "Sign in: approve this terminal in a browser (device flow)" },
  args: {
    scope: {
      type: "string",
      valueHint: "scopes",
      description: 'Only these scopes, space- or comma-separated, e.g. "read comments:write" (default: every scope)',
    },
    "base-url": commonArgs["base-url"],
  },
  async run({ args }) {
    const scope = args.scope === undefined ? undefined : scopeNames([args.scope], "scope").join(" ");
    if (scope === "") throw new UsageError("--scope needs at least one scope");
    const baseUrl = baseUrlFrom(args["base-url"]);
    const { token, me } = await approvedLogin(baseUrl, scope, (line) => console.log(line));
    // A login to another workspace is kept beside this one (`pm workspace use`); one to the same is replaced, and so
    // is one stored by an older `pm`, which names no workspace.
    const current = readLogin();
    const previous = current && !current.workspace ? current : readLogin(me.workspace.slug);
    useLogin({ ...loginOf(baseUrl, token), workspace: me.workspace.slug });
    await revokeReplaced(previous);
    console.log(`Logged in as ${me.user.name} <${me.user.email}> in ${me.workspace.name} (${me.workspace.slug}).`);
    if (scope) console.log(`Scopes: ${token.scope ?? scope}`);
    console.log(`Saved to ${configFile()}`);
  },
});

export const logout = defineCommand({
  meta: { name: "pm logout", description: "Sign out: revoke the login on the server and forget its tokens here" },
  async run() {
    const stored = readLogin();
    if (!stored) return console.log("Not logged in");
    // Forgotten here whatever the server answers: a person who logs out means to, also when the server is away.
    let revoked: boolean;
    try {
      revoked = await revokeLogin(stored);
    } catch (error) {
      forgetLogin();
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `removed the login's tokens from ${configFile()}, but revoking it at ${stored.baseUrl} failed (${reason}): it stays valid there until it expires`,
      );
    }
    forgetLogin();
    console.log(
      `Logged out of ${stored.baseUrl}: the login is ${revoked ? "revoked" : "no longer valid"} there and its tokens are removed from ${configFile()}`,
    );
  },
});
