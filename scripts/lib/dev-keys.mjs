// Dev/test signing key for JWTs: an ES256 JWK generated once and kept under .data/ (never committed).
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export function generateJwk() {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { ...privateKey.export({ format: "jwk" }), kid: `dev-${randomBytes(4).toString("hex")}` };
}

export function devSecrets(dir) {
  const file = path.join(dir, "dev-secrets.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8"));
  mkdirSync(dir, { recursive: true });
  const secrets = { JWT_PRIVATE_JWK: JSON.stringify(generateJwk()), CURSOR_SECRET: randomBytes(32).toString("hex") };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
