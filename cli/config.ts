// The login `pm login` stores: the API's base URL and the device flow's tokens, in the user's config directory
// ($XDG_CONFIG_HOME/pm/config.json, default ~/.config/pm/). The tokens are credentials: the directory is 0700 and the
// file 0600 from the moment it exists (written beside and renamed over, so no reader sees half a file, also when a
// renewal rewrites it while another `pm` reads it).
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

export interface StoredLogin {
  baseUrl: string;
  /** The access token (a JWT), sent as `Authorization: Bearer`. */
  token: string;
  /** ISO time the access token stops working (its `expires_in` counted from when it was issued). */
  expiresAt: string;
  /** What renews the access token (each one works once); absent in a login stored by an older `pm`. */
  refreshToken?: string;
  /** The scopes the login was granted (space-separated). */
  scope?: string;
}

export function configFile(): string {
  const base = process.env.XDG_CONFIG_HOME || path.join(homedir(), ".config");
  return path.join(base, "pm", "config.json");
}

export function readLogin(): StoredLogin | undefined {
  let text: string;
  try {
    text = readFileSync(configFile(), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return JSON.parse(text) as StoredLogin;
}

export function writeLogin(login: StoredLogin): void {
  const file = configFile();
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700); // it may have existed with a wider mode
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  renameSync(temp, file);
}

/** Whether there was a login to forget. */
export function removeLogin(): boolean {
  const existed = readLogin() !== undefined;
  rmSync(configFile(), { force: true });
  return existed;
}
