// Where a webhook may point (docs/webhooks.md, URL safety): an `https` URL whose host is public. Private, loopback,
// link-local, unique-local, CGNAT, multicast, reserved and metadata addresses and `localhost`-like names are refused,
// when the webhook is saved (the URL as written) and again at each delivery (what the name resolves to now, by
// DNS-over-HTTPS), since DNS can change. The development switch (DEV_WEBHOOKS=true) also allows loopback, over `http`.

/** What an address is: public, loopback (allowed by the dev switch), or anything else that is not the Internet. */
export type AddressClass = "public" | "loopback" | "private";

/**
 * What a special-purpose block holds: a class, or `v4` when the block carries an IPv4 address in its last 32 bits
 * (IPv4-mapped, NAT64's well-known prefix) or, for 6to4, in bits 16..47: that address decides.
 */
type BlockKind = AddressClass | "v4" | "6to4";

/**
 * The IANA IPv4 Special-Purpose Address Registry (RFC 6890 and its updates), each block as the registry's "Globally
 * Reachable" column says, plus multicast (224/4, its own registry). The most specific block containing an address
 * decides, so a globally reachable exception inside a reserved block (192.0.0.9, 192.0.0.10) is public.
 */
export const V4_BLOCKS: ReadonlyArray<readonly [string, BlockKind]> = [
  ["0.0.0.0/8", "private"], // "this network"
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "private"], // shared address space (CGNAT)
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "private"], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "private"], // IETF protocol assignments (DS-Lite, NAT64 discovery, …)
  ["192.0.0.9/32", "public"], // Port Control Protocol anycast: globally reachable
  ["192.0.0.10/32", "public"], // TURN anycast: globally reachable
  ["192.0.2.0/24", "private"], // documentation (TEST-NET-1)
  ["192.31.196.0/24", "public"], // AS112-v4: globally reachable
  ["192.52.193.0/24", "public"], // AMT: globally reachable
  ["192.88.99.0/24", "private"], // deprecated 6to4 relay anycast
  ["192.168.0.0/16", "private"],
  ["192.175.48.0/24", "public"], // AS112 direct delegation: globally reachable
  ["198.18.0.0/15", "private"], // benchmarking
  ["198.51.100.0/24", "private"], // documentation (TEST-NET-2)
  ["203.0.113.0/24", "private"], // documentation (TEST-NET-3)
  ["224.0.0.0/4", "private"], // multicast
  ["240.0.0.0/4", "private"], // reserved
  ["255.255.255.255/32", "private"], // limited broadcast
];

/**
 * The IANA IPv6 Special-Purpose Address Registry, likewise, plus what it leaves to other documents that is not the
 * Internet either: IPv4-compatible (::/96, deprecated), IPv4-translated (::ffff:0:0:0/96, RFC 2765, used only inside a
 * translator), site-local (fec0::/10, deprecated) and multicast (ff00::/8).
 */
export const V6_BLOCKS: ReadonlyArray<readonly [string, BlockKind]> = [
  ["::/96", "private"], // IPv4-compatible (deprecated)
  ["::/128", "private"], // unspecified
  ["::1/128", "loopback"],
  ["::ffff:0:0/96", "v4"], // IPv4-mapped
  ["::ffff:0:0:0/96", "private"], // IPv4-translated (RFC 2765)
  ["64:ff9b::/96", "v4"], // IPv4/IPv6 translation, well-known prefix (RFC 6052)
  ["64:ff9b:1::/48", "private"], // local-use IPv4/IPv6 translation (RFC 8215)
  ["100::/64", "private"], // discard-only
  ["100:0:0:1::/64", "private"], // dummy IPv6 prefix (RFC 9780)
  ["2001::/23", "private"], // IETF protocol assignments (Teredo 2001::/32, benchmarking 2001:2::/48, ORCHID …)
  ["2001:1::1/128", "public"], // Port Control Protocol anycast: globally reachable
  ["2001:1::2/128", "public"], // TURN anycast: globally reachable
  ["2001:1::3/128", "public"], // DNS-SD service registration anycast: globally reachable
  ["2001:3::/32", "public"], // AMT: globally reachable
  ["2001:4:112::/48", "public"], // AS112-v6: globally reachable
  ["2001:20::/28", "public"], // ORCHIDv2: globally reachable
  ["2001:30::/28", "public"], // drone remote ID (DRIP): globally reachable
  ["2001:db8::/32", "private"], // documentation
  ["2002::/16", "6to4"], // 6to4: the IPv4 address in bits 16..47 decides
  ["2620:4f:8000::/48", "public"], // AS112 direct delegation: globally reachable
  ["3fff::/20", "private"], // documentation
  ["5f00::/16", "private"], // segment routing (SRv6) SIDs
  ["fc00::/7", "private"], // unique-local (fd00:ec2::254, AWS metadata, included)
  ["fe80::/10", "private"], // link-local
  ["fec0::/10", "private"], // site-local (deprecated)
  ["ff00::/8", "private"], // multicast
];

function v4Number(address: string): number | null {
  const parts = address.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    n = n * 256 + Number(part);
  }
  return n;
}

/** An IPv6 address as a 128-bit number (`::` expanded, a trailing dotted IPv4 read, a zone dropped), or null. */
function v6Number(address: string): bigint | null {
  let text = address.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4Number(dotted[1]);
    if (n === null) return null;
    text = `${text.slice(0, -dotted[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const read = (part: string) => (part === "" ? [] : part.split(":"));
  const head = read(halves[0]);
  const tail = halves.length === 2 ? read(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.reduce((n, g) => (n << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
}

interface Block {
  base: bigint;
  bits: number;
  kind: BlockKind;
}

/** A registry table as numbers, most specific block first (so the first match is the longest prefix). */
function blocks(table: ReadonlyArray<readonly [string, BlockKind]>, width: number, parse: (a: string) => bigint | null): Block[] {
  return table
    .map(([cidr, kind]) => {
      const [address, bits] = cidr.split("/");
      const base = parse(address);
      if (base === null) throw new Error(`bad block ${cidr}`);
      return { base: base >> BigInt(width - Number(bits)), bits: Number(bits), kind };
    })
    .sort((a, b) => b.bits - a.bits);
}

const v4Big = (a: string) => {
  const n = v4Number(a);
  return n === null ? null : BigInt(n);
};
const V4 = blocks(V4_BLOCKS, 32, v4Big);
const V6 = blocks(V6_BLOCKS, 128, v6Number);

const blockOf = (table: Block[], width: number, n: bigint) => table.find((b) => n >> BigInt(width - b.bits) === b.base)?.kind;

function classifyV4(n: bigint): AddressClass {
  const kind = blockOf(V4, 32, n);
  return kind === "loopback" || kind === "private" ? kind : "public";
}

function classifyV6(n: bigint): AddressClass {
  const kind = blockOf(V6, 128, n) ?? "public";
  if (kind === "v4") return classifyV4(n & 0xffffffffn);
  if (kind === "6to4") return classifyV4((n >> 80n) & 0xffffffffn);
  return kind;
}

/** The class of an IP address literal (IPv4, or IPv6 with or without brackets); null when `host` is not one. */
export function classifyAddress(host: string): AddressClass | null {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const v4 = v4Number(bare);
  if (v4 !== null) return classifyV4(BigInt(v4));
  if (!bare.includes(":")) return null;
  const v6 = v6Number(bare);
  return v6 === null ? "private" : classifyV6(v6);
}

/** Names that are this machine or a private network's, never a public host. */
const LOCAL_NAMES = /(^|\.)(localhost|localdomain|local|internal|intranet|lan|home\.arpa|corp)$/;
const isLocalhostName = (host: string) => host === "localhost" || host.endsWith(".localhost");

/** The dev switch: loopback destinations (over http too) are allowed. */
export const devWebhooks = (env: { DEV_WEBHOOKS?: string }) => env.DEV_WEBHOOKS === "true";

/**
 * Why `url` may not be a webhook's destination as written (null when it may): https only; no credentials in it; a host
 * that is a public address or a name that is not local. With `dev`, `http` and loopback (127.0.0.0/8, ::1, localhost) too.
 */
export function urlProblem(url: string, dev: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "Must be an absolute URL";
  }
  // The WHATWG parser already turned `http://2130706433/` and `0x7f.1` into 127.0.0.1, so the checks below see them so.
  const host = parsed.hostname.toLowerCase().replace(/\.$/, "");
  const address = classifyAddress(host);
  const loopback = address === "loopback" || (address === null && isLocalhostName(host));
  if (parsed.protocol !== "https:" && !(dev && parsed.protocol === "http:" && loopback)) {
    return dev ? "Must be an https URL (or http to 127.0.0.1 or localhost while DEV_WEBHOOKS is on)" : "Must be an https URL";
  }
  if (parsed.username || parsed.password) return "Must not carry a user name or password";
  if (loopback) return dev ? null : "Must not point to this machine (loopback)";
  if (address === "private") return "Must not point to a private, link-local or reserved address";
  if (address === null && (LOCAL_NAMES.test(host) || !host.includes("."))) return "Must name a public host";
  return null;
}

interface DnsAnswer {
  Status: number;
  Answer?: Array<{ type: number; data: string }>;
}

const DOH = "https://cloudflare-dns.com/dns-query";

/** The A and AAAA answers for `host` from DNS-over-HTTPS (application/dns-json). */
export async function resolveHost(host: string, fetcher: typeof fetch = fetch, signal?: AbortSignal): Promise<string[]> {
  const ask = async (type: "A" | "AAAA") => {
    const res = await fetcher(`${DOH}?name=${encodeURIComponent(host)}&type=${type}`, {
      headers: { accept: "application/dns-json" },
      signal,
    });
    if (!res.ok) throw new Error(`DNS-over-HTTPS answered ${res.status}`);
    const answer = (await res.json()) as DnsAnswer;
    return (answer.Answer ?? []).filter((a) => a.type === 1 || a.type === 28).map((a) => a.data);
  };
  const [a, aaaa] = await Promise.all([ask("A"), ask("AAAA")]);
  return [...a, ...aaaa];
}

/**
 * Why a delivery may not go to `url` now (null when it may): the rules of urlProblem, and every address the host
 * resolves to public (loopback too with the dev switch). A literal address needs no lookup; nor does `localhost` in dev.
 */
export async function destinationProblem(url: string, dev: boolean, fetcher: typeof fetch = fetch, signal?: AbortSignal) {
  const problem = urlProblem(url, dev);
  if (problem) return problem;
  const host = new URL(url).hostname.toLowerCase().replace(/\.$/, "");
  if (classifyAddress(host) !== null || (dev && isLocalhostName(host))) return null;
  const addresses = await resolveHost(host, fetcher, signal);
  if (addresses.length === 0) return `${host} does not resolve`;
  for (const address of addresses) {
    const kind = classifyAddress(address) ?? "private";
    if (kind === "private" || (kind === "loopback" && !dev)) return `${host} resolves to a non-public address (${address})`;
  }
  return null;
}
