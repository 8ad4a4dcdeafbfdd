// Where a webhook may point (docs/webhooks.md, URL safety): an `https` URL whose host is public. Private, loopback,
// link-local, unique-local, CGNAT, multicast, reserved and metadata addresses and `localhost`-like names are refused,
// when the webhook is saved (the URL as written) and again at each delivery (what the name resolves to now, by
// DNS-over-HTTPS), since DNS can change. The development switch (DEV_WEBHOOKS=true) also allows loopback, over `http`.

/** What an address is: public, loopback (allowed by the dev switch), or anything else that is not the Internet. */
export type AddressClass = "public" | "loopback" | "private";

/** IPv4 ranges that are not public (RFC 6890 and friends), as [first octets as a number, prefix length]. */
const V4_BLOCKED: Array<[string, number]> = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // CGNAT
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // TEST-NET-1
  ["192.88.99.0", 24], // 6to4 relay anycast (deprecated)
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // TEST-NET-2
  ["203.0.113.0", 24], // TEST-NET-3
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
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

function classifyV4(n: number): AddressClass {
  if (n >>> 24 === 127) return "loopback";
  for (const [base, bits] of V4_BLOCKED) {
    const size = 2 ** (32 - bits);
    const start = v4Number(base)!;
    if (n >= start && n < start + size) return "private";
  }
  return "public";
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a trailing dotted IPv4 read), or null. */
function v6Groups(address: string): number[] | null {
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
  return groups.map((g) => Number.parseInt(g, 16));
}

function classifyV6(g: number[]): AddressClass {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 7) && g[7] === 1) return "loopback"; // ::1
  if (zeros(0, 8)) return "private"; // ::
  const embedded = (g[6] << 16) | g[7];
  if (zeros(0, 5) && g[5] === 0xffff) return classifyV4(embedded >>> 0); // ::ffff:a.b.c.d (IPv4-mapped)
  if (zeros(0, 6)) return classifyV4(embedded >>> 0); // ::a.b.c.d (IPv4-compatible, deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return classifyV4(embedded >>> 0); // NAT64
  if ((g[0] & 0xfe00) === 0xfc00) return "private"; // fc00::/7 unique-local (fd00:ec2::254 metadata included)
  if ((g[0] & 0xffc0) === 0xfe80 || (g[0] & 0xffc0) === 0xfec0) return "private"; // link-local, site-local
  if ((g[0] & 0xff00) === 0xff00) return "private"; // multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "private"; // documentation
  if (g[0] === 0x0100 && zeros(1, 4)) return "private"; // discard-only 100::/64
  if (g[0] === 0x2002) return classifyV4(((g[1] << 16) | g[2]) >>> 0); // 6to4 carries an IPv4 address
  if (g[0] === 0x2001 && g[1] === 0) return "private"; // Teredo
  return "public";
}

/** The class of an IP address literal (IPv4, or IPv6 with or without brackets); null when `host` is not one. */
export function classifyAddress(host: string): AddressClass | null {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const v4 = v4Number(bare);
  if (v4 !== null) return classifyV4(v4);
  if (!bare.includes(":")) return null;
  const v6 = v6Groups(bare);
  return v6 ? classifyV6(v6) : "private";
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
