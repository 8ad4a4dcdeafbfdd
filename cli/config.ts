// The login `pm login` stores: the API's base URL and the device flow's tokens, in the user's config directory
// ($XDG_CONFIG_HOME/pm/config.json, default ~/.config/pm/). A token belongs to one workspace: the current login is
// the file's top level, the logins of the other workspaces signed in to are kept under `others` (by slug), for
// `pm workspace use` and `--workspace`. `pm logout` forgets the current token but keeps its base URL and workspace. The tokens are credentials: the directory is 0700 and the
// file 0600 from the moment it exists (written beside and renamed over, so no reader sees half a file, also when a
// renewal rewrites it while another `pm` reads it).
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
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
  /** The slug of the login's workspace (absent in a login stored by an older `pm`). */
  workspace?: string;
}

/** The file: the current login (without its tokens after `pm logout`) and the other workspaces' logins. */
interface ConfigFile extends Partial<StoredLogin> {
  others?: Record<string, StoredLogin>;
}

export function configFile(): string {
  const base = process.env.XDG_CONFIG_HOME || path.join(homedir(), ".config");
  return path.join(base, "pm", "config.json");
}

export function readConfig(): ConfigFile | undefined {
  let text: string;
  try {
    text = readFileSync(configFile(), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return JSON.parse(text) as ConfigFile;
}

const isLogin = (entry: Partial<StoredLogin> | undefined): entry is StoredLogin => Boolean(entry?.token && entry.baseUrl);

function currentOf(config: ConfigFile): StoredLogin | undefined {
  const { others, ...current } = config;
  return isLogin(current) ? current : undefined;
}

/** The current login, or with `workspace` that workspace's login (current or kept). */
export function readLogin(workspace?: string): StoredLogin | undefined {
  const config = readConfig();
  if (!config) return undefined;
  const current = currentOf(config);
  if (workspace === undefined || current?.workspace === workspace) return current;
  return config.others?.[workspace];
}

/** The slugs of the workspaces with a login kept here, the current one first. */
export function loggedInWorkspaces(): string[] {
  const config = readConfig() ?? {};
  const current = currentOf(config)?.workspace;
  return [...(current ? [current] : []), ...Object.keys(config.others ?? {})];
}

/** Stores a renewed login where it was: the current login, or a kept one of another workspace. */
export function writeLogin(login: StoredLogin): void {
  const config = readConfig() ?? {};
  const slug = login.workspace;
  if (slug && config.others?.[slug] && currentOf(config)?.workspace !== slug) {
    writeConfig({ ...config, others: { ...config.others, [slug]: login } });
  } else writeConfig({ ...login, ...(config.others ? { others: config.others } : {}) });
}

/** Makes `login` the current one; the current login of another workspace is kept under `others`. */
export function useLogin(login: StoredLogin): void {
  const config = readConfig() ?? {};
  const current = currentOf(config);
  const others = { ...config.others };
  if (login.workspace) delete others[login.workspace];
  if (current?.workspace && current.workspace !== login.workspace) others[current.workspace] = current;
  writeConfig({ ...login, ...(Object.keys(others).length ? { others } : {}) });
}

/** Keeps `login` (of a named workspace) beside the current login, which stays current; with no current login, it becomes it. */
export function keepLogin(login: StoredLogin & { workspace: string }): void {
  const config = readConfig() ?? {};
  const current = currentOf(config);
  if (!current || current.workspace === login.workspace) useLogin(login);
  else writeConfig({ ...config, others: { ...config.others, [login.workspace]: login } });
}

function writeConfig(config: ConfigFile): void {
  const file = configFile();
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700); // it may have existed with a wider mode
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  renameSync(temp, file);
}

/** Forgets the current login's tokens, keeping its base URL and workspace (the next `pm login` goes there). */
export function forgetLogin(): void {
  const config = readConfig();
  if (!config) return;
  const { baseUrl, workspace, others } = config;
  writeConfig({ baseUrl, ...(workspace ? { workspace } : {}), ...(others ? { others } : {}) });
}
