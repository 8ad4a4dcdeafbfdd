// The webhook destination rules (src/webhooks/url-safety.ts): the address classifier, the URL check with and without the
// development switch, and the delivery-time check of what a name resolves to (DNS-over-HTTPS, answered here by a stub).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { EventDto } from "../../src/records/events";
import { MAX_RETRY_DELAY_SECONDS, retryAfterSeconds, retryDelaySeconds } from "../../src/webhooks/backoff";
import { bodyText } from "../../src/webhooks/consumer";
import { eventBody, MAX_BODY_BYTES } from "../../src/webhooks/relay";
import { classifyAddress, destinationProblem, urlProblem } from "../../src/webhooks/url-safety";

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.1.2", "loopback"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.10", "private"],
    ["100.64.0.1", "private"], // CGNAT
    ["100.127.255.254", "private"],
    ["169.254.169.254", "private"], // metadata
    ["0.0.0.0", "private"],
    ["224.0.0.1", "private"],
    ["255.255.255.255", "private"],
    ["198.18.0.1", "private"],
    ["::", "private"],
    ["fc00::1", "private"],
    ["fd00:ec2::254", "private"], // AWS metadata over IPv6
    ["fe80::1%eth0", "private"],
    ["ff02::1", "private"],
    ["2001:db8::1", "private"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:a00:1", "private"],
    ["64:ff9b::10.0.0.1", "private"], // NAT64 of a private address
    ["2002:c0a8:0101::1", "private"], // 6to4 of 192.168.1.1
    ["8.8.8.8", "public"],
    ["1.1.1.1", "public"],
    ["172.32.0.1", "public"],
    ["100.128.0.1", "public"],
    ["192.169.0.1", "public"],
    ["2606:4700:4700::1111", "public"],
    ["::ffff:8.8.8.8", "public"],
    ["64:ff9b::8.8.8.8", "public"],
  ])("%s is %s", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it("is null for names, and never 'public' for a malformed IPv6 literal", () => {
    expect(classifyAddress("example.com")).toBeNull();
    expect(classifyAddress("1.2.3")).toBeNull();
    expect(classifyAddress("1:2:3:4:5:6:7:8:9")).toBe("private");
    expect(classifyAddress("gggg::1")).toBe("private");
  });

  it("classifies every address of 10/8 as private and 127/8 as loopback (property)", () => {
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(fc.property(octet, octet, octet, (a, b, c) => classifyAddress(`10.${a}.${b}.${c}`) === "private"));
    fc.assert(fc.property(octet, octet, octet, (a, b, c) => classifyAddress(`127.${a}.${b}.${c}`) === "loopback"));
  });
});

/**
 * Every block of the IANA IPv4 and IPv6 Special-Purpose Address Registries (and multicast, site-local, IPv4-compatible
 * and IPv4-translated, which other documents reserve), written here from the registries, not from the source: the
 * first and the last address of each block must be what the registry's "Globally Reachable" column says.
 */
const V4_REGISTRY: Array<[string, "private" | "loopback" | "public"]> = [
  ["0.0.0.0/8", "private"],
  ["0.0.0.0/32", "private"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "private"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "private"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "private"],
  ["192.0.0.0/29", "private"],
  ["192.0.0.8/32", "private"],
  ["192.0.0.9/32", "public"],
  ["192.0.0.10/32", "public"],
  ["192.0.0.170/32", "private"],
  ["192.0.0.171/32", "private"],
  ["192.0.2.0/24", "private"],
  ["192.31.196.0/24", "public"],
  ["192.52.193.0/24", "public"],
  ["192.88.99.0/24", "private"],
  ["192.168.0.0/16", "private"],
  ["192.175.48.0/24", "public"],
  ["198.18.0.0/15", "private"],
  ["198.51.100.0/24", "private"],
  ["203.0.113.0/24", "private"],
  ["224.0.0.0/4", "private"],
  ["240.0.0.0/4", "private"],
  ["255.255.255.255/32", "private"],
];

const V6_REGISTRY: Array<[string, "private" | "loopback" | "public"]> = [
  ["::/128", "private"],
  ["::1/128", "loopback"],
  ["::ffff:0:0:0/96", "private"],
  ["64:ff9b:1::/48", "private"],
  ["100::/64", "private"],
  ["100:0:0:1::/64", "private"],
  ["2001::/23", "private"],
  ["2001::/32", "private"],
  ["2001:1::1/128", "public"],
  ["2001:1::2/128", "public"],
  ["2001:1::3/128", "public"],
  ["2001:2::/48", "private"],
  ["2001:3::/32", "public"],
  ["2001:4:112::/48", "public"],
  ["2001:10::/28", "private"],
  ["2001:20::/28", "public"],
  ["2001:30::/28", "public"],
  ["2001:db8::/32", "private"],
  ["2620:4f:8000::/48", "public"],
  ["3fff::/20", "private"],
  ["5f00::/16", "private"],
  ["fc00::/7", "private"],
  ["fe80::/10", "private"],
  ["fec0::/10", "private"],
  ["ff00::/8", "private"],
];

/** The first and last address of a block, written out in full. */
function ends(cidr: string): [string, string] {
  const [address, prefix] = cidr.split("/");
  const v4 = !address.includes(":");
  const width = v4 ? 32 : 128;
  let n = 0n;
  if (v4) for (const part of address.split(".")) n = (n << 8n) | BigInt(part);
  else {
    const [head, tail = ""] = address.split("::");
    const h = head ? head.split(":") : [];
    const t = tail ? tail.split(":") : [];
    const groups = address.includes("::") ? [...h, ...Array(8 - h.length - t.length).fill("0"), ...t] : h;
    for (const g of groups) n = (n << 16n) | BigInt(Number.parseInt(g, 16));
  }
  const host = (1n << BigInt(width - Number(prefix))) - 1n;
  const show = (x: bigint) =>
    v4
      ? [24n, 16n, 8n, 0n].map((s) => String((x >> s) & 255n)).join(".")
      : [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((s) => ((x >> s) & 0xffffn).toString(16)).join(":");
  return [show(n & ~host), show(n | host)];
}

describe("classifyAddress: every special-purpose block of the IANA registries", () => {
  // A block's exceptions (192.0.0.9 in 192.0.0.0/24, 2001:1::1 in 2001::/23) are never its first or last address.
  it.each([...V4_REGISTRY, ...V6_REGISTRY])("%s is %s, first to last address", (cidr, kind) => {
    for (const address of ends(cidr)) expect(classifyAddress(address), address).toBe(kind);
  });

  it.each([
    // IPv4-mapped (::ffff:0:0/96), NAT64's well-known prefix (64:ff9b::/96) and 6to4 (2002::/16): the IPv4 address decides.
    ["::ffff:0.0.0.0", "private"],
    ["::ffff:169.254.169.254", "private"],
    ["::ffff:1.1.1.1", "public"],
    ["64:ff9b::a9fe:a9fe", "private"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::c000:9", "public"], // 192.0.0.9, globally reachable
    ["64:ff9b::101:101", "public"],
    ["2002:a00:1::", "private"], // 10.0.0.1
    ["2002:a9fe:a9fe:ffff:ffff:ffff:ffff:ffff", "private"],
    ["2002:101:101::1", "public"],
    // Forms a review found missed: IPv4-translated (RFC 2765) and local-use NAT64 (RFC 8215) forms of private addresses.
    ["::ffff:0:10.0.0.1", "private"],
    ["::ffff:0:a9fe:a9fe", "private"],
    ["64:ff9b:1::a00:1", "private"],
    ["64:ff9b:1::101:101", "private"],
    // IPv4-compatible (deprecated): not an address on the Internet, whatever it embeds.
    ["::8.8.8.8", "private"],
    // Just outside blocks.
    ["2001:200::1", "public"],
    ["2003::1", "public"],
    ["3fff:1000::", "public"],
    ["fbff:ffff::1", "public"],
    ["fe00::1", "public"],
    ["192.0.1.0", "public"],
    ["198.20.0.0", "public"],
    ["223.255.255.255", "public"],
  ])("%s is %s (embedded and neighbouring addresses)", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});

describe("urlProblem", () => {
  it("takes https URLs of public hosts", () => {
    for (const url of [
      "https://example.com/hook",
      "https://hooks.example.com:8443/a?b=c",
      "https://8.8.8.8/x",
      "https://[2606:4700::1]/x",
    ]) {
      expect(urlProblem(url, false), url).toBeNull();
    }
  });

  it("refuses http, loopback, private addresses and local names in production", () => {
    for (const url of [
      "http://example.com/hook",
      "https://localhost/hook",
      "https://api.localhost/hook",
      "https://127.0.0.1/hook",
      "https://2130706433/hook", // 127.0.0.1 as one number: the URL parser normalizes it
      "https://0x7f.1/hook",
      "https://[::1]/hook",
      "https://10.0.0.1/hook",
      "https://169.254.169.254/latest",
      "https://[fd00:ec2::254]/",
      "https://metadata.google.internal/computeMetadata",
      "https://router.lan/",
      "https://nas.home.arpa/",
      "https://intranet/",
      "https://user:secret@example.com/",
      "ftp://example.com/",
      "not a url",
      "http://127.0.0.1:8787/_dev/webhooks",
      "https://[::ffff:0:10.0.0.1]/", // IPv4-translated (RFC 2765), as the URL parser writes it: [::ffff:0:a00:1]
      "https://[::ffff:0:a9fe:a9fe]/",
      "https://[64:ff9b:1::a00:1]/", // local-use NAT64 (RFC 8215)
    ]) {
      expect(urlProblem(url, false), url).not.toBeNull();
    }
  });

  it("with the dev switch also takes http and https to loopback, and nothing else new", () => {
    for (const url of ["http://127.0.0.1:8787/_dev/webhooks", "http://localhost:3000/x", "https://localhost/x", "http://[::1]:9/x"]) {
      expect(urlProblem(url, true), url).toBeNull();
    }
    for (const url of ["http://example.com/x", "http://10.0.0.1/x", "https://192.168.1.1/x", "https://169.254.169.254/"]) {
      expect(urlProblem(url, true), url).not.toBeNull();
    }
  });
});

describe("destinationProblem (delivery time)", () => {
  /** A DNS-over-HTTPS stub: `answers` by record type. */
  const doh = (answers: { A?: string[]; AAAA?: string[] }) =>
    (async (input: RequestInfo | URL) => {
      const url = new URL(String(input));
      expect(url.origin + url.pathname).toBe("https://cloudflare-dns.com/dns-query");
      const type = url.searchParams.get("type") as "A" | "AAAA";
      const Answer = (answers[type] ?? []).map((data) => ({ type: type === "A" ? 1 : 28, data }));
      return new Response(JSON.stringify({ Status: 0, Answer: [{ type: 5, data: "alias.example.com." }, ...Answer] }));
    }) as typeof fetch;

  it("takes a name that resolves to public addresses only", async () => {
    expect(
      await destinationProblem("https://hooks.example.com/x", false, doh({ A: ["93.184.216.34"], AAAA: ["2606:2800::1"] })),
    ).toBeNull();
  });

  it("refuses a name that resolves (now) to a private or loopback address, or to nothing", async () => {
    expect(await destinationProblem("https://hooks.example.com/x", false, doh({ A: ["93.184.216.34", "10.0.0.5"] }))).toMatch(
      /10\.0\.0\.5/,
    );
    expect(await destinationProblem("https://hooks.example.com/x", false, doh({ AAAA: ["::1"] }))).toMatch(/non-public/);
    expect(await destinationProblem("https://rebound.example.com/x", false, doh({ A: ["169.254.169.254"] }))).toMatch(/non-public/);
    expect(await destinationProblem("https://gone.example.com/x", false, doh({}))).toMatch(/does not resolve/);
  });

  it("with the dev switch, a name resolving to loopback is allowed; literals need no lookup", async () => {
    expect(await destinationProblem("https://dev.example.com/x", true, doh({ A: ["127.0.0.1"] }))).toBeNull();
    const never = (async () => {
      throw new Error("no lookup expected");
    }) as unknown as typeof fetch;
    expect(await destinationProblem("http://127.0.0.1:8787/_dev/webhooks", true, never)).toBeNull();
    expect(await destinationProblem("http://localhost:8787/x", true, never)).toBeNull();
  });
});

describe("retry backoff", () => {
  it("doubles from the base, with ±20 % jitter, capped at 12 h", () => {
    expect(retryDelaySeconds(1, 30, null, 0.5)).toBe(30);
    expect(retryDelaySeconds(2, 30, null, 0.5)).toBe(60);
    expect(retryDelaySeconds(5, 30, null, 0.5)).toBe(480);
    expect(retryDelaySeconds(1, 30, null, 0)).toBe(24);
    expect(retryDelaySeconds(1, 30, null, 1)).toBe(36);
    expect(retryDelaySeconds(20, 30, null, 1)).toBe(MAX_RETRY_DELAY_SECONDS);
  });

  it("spans at least 24 hours over the 13 retries of 14 attempts, even with the shortest jitter", () => {
    const total = Array.from({ length: 13 }, (_, i) => retryDelaySeconds(i + 1, 30, null, 0)).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(24 * 3600);
  });

  it("honours Retry-After (seconds or an HTTP date), within the 12 h cap", () => {
    expect(retryDelaySeconds(1, 30, 600, 0.5)).toBe(600);
    expect(retryDelaySeconds(1, 30, 10 ** 9, 0.5)).toBe(MAX_RETRY_DELAY_SECONDS);
    expect(retryAfterSeconds("120")).toBe(120);
    expect(retryAfterSeconds(new Date(Date.now() + 90_000).toUTCString())).toBeGreaterThanOrEqual(89);
    expect(retryAfterSeconds("soon")).toBeNull();
    expect(retryAfterSeconds(null)).toBeNull();
  });
});

describe("webhook bodies", () => {
  const event = (text: string) =>
    ({
      id: "evt_1",
      type: "task.updated",
      resourceType: "task",
      resourceId: "task_1",
      reference: "ENG-1",
      actor: null,
      changes: { description: { from: "", to: text } },
      data: { description: text },
      requestId: "r",
      position: 1,
      createdAt: "2026-01-01T00:00:00.000Z",
    }) as EventDto;

  it("is the event as GET /events answers it up to 256 KiB; above, without data and changes, marked truncated", () => {
    expect(eventBody(event("small"))).toEqual(event("small"));
    const big = eventBody(event("x".repeat(MAX_BODY_BYTES)));
    expect(big).toMatchObject({ id: "evt_1", type: "task.updated", resourceId: "task_1", truncated: true });
    expect(big).not.toHaveProperty("data");
    expect(big).not.toHaveProperty("changes");
  });

  it("goes out as compact JSON in the event's key order, whatever order the stored jsonb has", () => {
    const stored = JSON.stringify({ data: { a: 1 }, id: "evt_1", type: "task.created", position: 7, createdAt: "c" });
    expect(bodyText(stored)).toBe('{"id":"evt_1","type":"task.created","data":{"a":1},"position":7,"createdAt":"c"}');
  });
});
