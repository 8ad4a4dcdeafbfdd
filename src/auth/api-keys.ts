import { randomToken, sha256Hex } from "../core/crypto";

const RAW_PREFIX = "pmk_";

/** A new raw API key (32 random bytes), the hash that is stored, and the 10-character public prefix. */
export async function generateApiKey(): Promise<{ raw: string; hash: string; prefix: string }> {
  const raw = RAW_PREFIX + randomToken(32);
  return { raw, hash: await sha256Hex(raw), prefix: raw.slice(0, 10) };
}

export const hashApiKey = (raw: string) => sha256Hex(raw);
