// `pm login`: the device flow (RFC 8628). The CLI gets a user code, a person approves it in a browser (signing in
// there with an emailed code), and the CLI's polling receives a JWT, which is stored for the next commands.
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { defineCommand } from "citty";
import type { PmClient, Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { configFile, removeLogin, writeLogin } from "../config";
import { ApiError, NotLoggedInError } from "../errors";
import { baseUrlFrom, connect, unwrap } from "../session";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
/** RFC 8628 §3.5: after `slow_down` the client polls that much more slowly from then on. */
const SLOW_DOWN_STEP_SECONDS = 5;

/** Polls until the person decides or the code expires: the token, or the API's refusal as an ApiError. */
async function pollForToken(client: PmClient, device: Schemas["DeviceCode"]): Promise<Schemas["DeviceToken"]> {
  let interval = device.interval;
  const deadline = Date.now() + device.expires_in * 1000;
  while (Date.now() + interval * 1000 < deadline) {
    await sleep(interval * 1000);
    const { data, error, response } = await client.POST("/auth/device/token", {
      body: { device_code: device.device_code, grant_type: DEVICE_GRANT },
    });
    if (data) return data;
    const refusal = ApiError.fromBody(response.status, error);
    if (refusal.code === "SLOW_DOWN") interval += SLOW_DOWN_STEP_SECONDS;
    // A refused login is a credential problem like any other (exit 3), not an API error.
    else if (refusal.code === "ACCESS_DENIED") throw new NotLoggedInError("the login was denied in the browser");
    else if (refusal.code === "EXPIRED_TOKEN") throw expired();
    else if (refusal.code !== "AUTHORIZATION_PENDING") throw refusal;
  }
  throw expired();
}

const expired = () => new NotLoggedInError("the code expired before it was approved: run `pm login` again");

export const login = defineCommand({
  meta: { name: "pm login", description: "Sign in: approve this terminal in a browser (device flow)" },
  args: { "base-url": commonArgs["base-url"] },
  async run({ args }) {
    const baseUrl = baseUrlFrom(args["base-url"]);
    const client = connect(baseUrl);
    const device = await unwrap(client.POST("/auth/device/code", { body: { client_name: `pm CLI on ${hostname()}` } }));
    console.log(`To sign in, open ${device.verification_uri} and enter the code: ${device.user_code}`);
    console.log(`(or open ${device.verification_uri_complete})`);
    console.log("Waiting for approval…");
    const token = await pollForToken(client, device);
    const me = await unwrap(connect(baseUrl, { token: token.access_token }).GET("/me"));
    writeLogin({ baseUrl, token: token.access_token, expiresAt: new Date(Date.now() + token.expires_in * 1000).toISOString() });
    console.log(`Logged in as ${me.user.name} <${me.user.email}> in ${me.workspace.name} (${me.workspace.slug}).`);
    console.log(`Saved to ${configFile()}`);
  },
});

export const logout = defineCommand({
  meta: { name: "pm logout", description: "Forget the stored login (the token itself lasts until it expires)" },
  run() {
    console.log(removeLogin() ? `Logged out (removed ${configFile()})` : "Not logged in");
  },
});
