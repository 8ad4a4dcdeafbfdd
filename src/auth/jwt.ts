import { exportJWK, importJWK, type JWK, type JWTPayload, jwtVerify, SignJWT } from "jose";
import type { Env } from "../env";

export const JWT_ALG = "ES256";
const TOKEN_TTL_SECONDS = 3600;

type KeyPair = { privateKey: CryptoKey; publicKey: CryptoKey; publicJwk: JWK };
let cached: { source: string; keys: Promise<KeyPair> } | undefined;

/** Keys are imported once per isolate; the public half is derived from the private JWK. */
function keys(env: Pick<Env, "JWT_PRIVATE_JWK">): Promise<KeyPair> {
  if (cached?.source !== env.JWT_PRIVATE_JWK) {
    let jwk: JWK;
    try {
      jwk = JSON.parse(env.JWT_PRIVATE_JWK) as JWK;
    } catch {
      // Says what is wrong in the log (the value itself is a secret and stays out of it).
      throw new Error("JWT_PRIVATE_JWK is not valid JSON: check how the secret or the dev env file quotes it");
    }
    const { d: _d, ...pub } = jwk;
    cached = {
      source: env.JWT_PRIVATE_JWK,
      keys: (async () => {
        const privateKey = (await importJWK(jwk, JWT_ALG)) as CryptoKey;
        const publicKey = (await importJWK(pub, JWT_ALG)) as CryptoKey;
        const publicJwk = { ...(await exportJWK(publicKey)), alg: JWT_ALG, use: "sig", kid: jwk.kid ?? "main" };
        return { privateKey, publicKey, publicJwk };
      })(),
    };
  }
  return cached.keys;
}

/**
 * A token's payload: its user (`sub`) and workspace (`wid`); for a device's login, the login (`sid`, revoked at once with
 * it), for an OAuth grant, the grant (`gid`, likewise), its scopes (`scope`, space-separated as RFC 8693 and RFC 9068 write it; absent: every scope) and teams (`tid`).
 */
export interface AccessPayload {
  sub: string;
  wid: string;
  sid?: string;
  gid?: string;
  scope?: string;
  tid?: string[];
}

export async function signAccessToken(
  env: Pick<Env, "JWT_PRIVATE_JWK" | "JWT_ISSUER" | "JWT_AUDIENCE">,
  { sub, ...payload }: AccessPayload,
): Promise<{ token: string; expiresIn: number }> {
  const { privateKey, publicJwk } = await keys(env);
  const token = await new SignJWT(payload)
    .setProtectedHeader({ alg: JWT_ALG, kid: publicJwk.kid })
    .setSubject(sub)
    .setIssuer(env.JWT_ISSUER)
    .setAudience(env.JWT_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${TOKEN_TTL_SECONDS}s`)
    .sign(privateKey);
  return { token, expiresIn: TOKEN_TTL_SECONDS };
}

/** Verifies signature (ES256 only: `alg:none` and HMAC confusion are refused), issuer, audience and expiry. */
export async function verifyAccessToken(
  env: Pick<Env, "JWT_PRIVATE_JWK" | "JWT_ISSUER" | "JWT_AUDIENCE">,
  token: string,
): Promise<(AccessPayload & { exp: number }) | null> {
  try {
    const { publicKey } = await keys(env);
    const { payload } = await jwtVerify<JWTPayload & { wid?: unknown; sid?: unknown; gid?: unknown; scope?: unknown; tid?: unknown }>(
      token,
      publicKey,
      {
        algorithms: [JWT_ALG],
        issuer: env.JWT_ISSUER,
        audience: env.JWT_AUDIENCE,
        requiredClaims: ["exp", "sub"],
      },
    );
    const { sub, wid, sid, gid, scope, tid, exp } = payload;
    if (typeof sub !== "string" || typeof wid !== "string" || typeof exp !== "number") return null;
    if (sid !== undefined && typeof sid !== "string") return null;
    if (gid !== undefined && typeof gid !== "string") return null;
    if (scope !== undefined && typeof scope !== "string") return null;
    if (tid !== undefined && !(Array.isArray(tid) && tid.every((t) => typeof t === "string"))) return null;
    return { sub, wid, sid, gid, scope, tid, exp };
  } catch {
    return null;
  }
}

export async function publicJwks(env: Pick<Env, "JWT_PRIVATE_JWK">): Promise<{ keys: JWK[] }> {
  return { keys: [(await keys(env)).publicJwk] };
}

/**
 * A short-lived signed value for a page's hidden field (the OAuth consent page's request and sign-in): its audience is
 * `<JWT_AUDIENCE>/<purpose>`, so it is never an access token, nor one purpose's value another's.
 */
export async function sealState(
  env: Pick<Env, "JWT_PRIVATE_JWK" | "JWT_ISSUER" | "JWT_AUDIENCE">,
  purpose: string,
  payload: Record<string, unknown>,
  ttlSeconds: number,
): Promise<string> {
  const { privateKey, publicJwk } = await keys(env);
  return new SignJWT(payload)
    .setProtectedHeader({ alg: JWT_ALG, kid: publicJwk.kid })
    .setIssuer(env.JWT_ISSUER)
    .setAudience(`${env.JWT_AUDIENCE}/${purpose}`)
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(privateKey);
}

/** The payload of a sealState value of `purpose`, or null when it is forged, of another purpose or expired. */
export async function openState(
  env: Pick<Env, "JWT_PRIVATE_JWK" | "JWT_ISSUER" | "JWT_AUDIENCE">,
  purpose: string,
  token: string,
): Promise<Record<string, unknown> | null> {
  try {
    const { publicKey } = await keys(env);
    const { payload } = await jwtVerify(token, publicKey, {
      algorithms: [JWT_ALG],
      issuer: env.JWT_ISSUER,
      audience: `${env.JWT_AUDIENCE}/${purpose}`,
      requiredClaims: ["exp"],
    });
    return payload;
  } catch {
    return null;
  }
}
