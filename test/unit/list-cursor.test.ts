import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/core/errors";
import { type CursorPayload, decodeCursor, encodeCursor } from "../../src/store/list/cursor";

const key = { scope: "ws_01hzy3k9q2m8x7v6t5r4p3n2b1", secret: "test-secret" };

const text = fc.string({ unit: "binary", maxLength: 40 });
const cursorValue = fc.oneof(
  text,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
  fc.boolean(),
  fc.constant(null),
);
const payload: fc.Arbitrary<CursorPayload> = fc.record({
  r: text,
  s: text,
  v: fc.array(cursorValue, { maxLength: 5 }),
  i: text,
});

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/** Signs an arbitrary body in the documented format, to reach the checks behind the signature. */
async function signRaw(body: string): Promise<string> {
  const enc = new TextEncoder();
  const payloadPart = b64url(enc.encode(body));
  const hmac = await crypto.subtle.importKey("raw", enc.encode(key.secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", hmac, enc.encode(`${key.scope}\n${payloadPart}`)));
  return `${payloadPart}.${b64url(mac.slice(0, 16))}`;
}

async function expectBadRequest(promise: Promise<unknown>) {
  const error = await promise.then(
    () => new Error("decoded successfully"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe("BAD_REQUEST");
  expect((error as AppError).message).toBe("Invalid cursor");
}

describe("cursor codec", () => {
  it("round-trips arbitrary payloads", async () => {
    await fc.assert(
      fc.asyncProperty(payload, async (p) => {
        expect(await decodeCursor(await encodeCursor(p, key), key)).toEqual(p);
      }),
    );
  });

  it("produces URL-safe text", async () => {
    await fc.assert(
      fc.asyncProperty(payload, async (p) => {
        expect(await encodeCursor(p, key)).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      }),
    );
  });

  it("rejects any single changed character", async () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ é";
    await fc.assert(
      fc.asyncProperty(payload, fc.nat(), fc.nat(alphabet.length - 1), async (p, at, pick) => {
        const cursor = await encodeCursor(p, key);
        const index = at % cursor.length;
        const replacement = alphabet[pick] === cursor[index] ? alphabet[(pick + 1) % alphabet.length] : alphabet[pick];
        await expectBadRequest(decodeCursor(cursor.slice(0, index) + replacement + cursor.slice(index + 1), key));
      }),
    );
  });

  it("rejects the last signature character changed within its padding bits", async () => {
    const cursor = await encodeCursor({ r: "tasks", s: "createdAt:asc,id:asc", v: ["x"], i: "t_1" }, key);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(cursor[cursor.length - 1]);
    // 16 bytes in base64url leave the low 4 bits of the last character unused.
    const sibling = alphabet[last ^ 1];
    await expectBadRequest(decodeCursor(cursor.slice(0, -1) + sibling, key));
  });

  it("rejects truncations and extensions", async () => {
    await fc.assert(
      fc.asyncProperty(payload, fc.nat(), fc.string({ minLength: 1, maxLength: 4 }), async (p, at, extra) => {
        const cursor = await encodeCursor(p, key);
        await expectBadRequest(decodeCursor(cursor.slice(0, at % cursor.length), key));
        await expectBadRequest(decodeCursor(cursor + extra, key));
      }),
    );
  });

  it("rejects another scope or secret", async () => {
    await fc.assert(
      fc.asyncProperty(payload, fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), async (p, scope, secret) => {
        const cursor = await encodeCursor(p, key);
        if (scope !== key.scope) await expectBadRequest(decodeCursor(cursor, { ...key, scope }));
        if (secret !== key.secret) await expectBadRequest(decodeCursor(cursor, { ...key, secret }));
      }),
    );
  });

  it("answers BAD_REQUEST and nothing else for arbitrary strings", async () => {
    const cursorish = fc.tuple(fc.base64String(), fc.base64String()).map(([a, b]) => `${a}.${b}`.replace(/=/g, ""));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ unit: "binary" }), cursorish, fc.constant(""), fc.constant(".")), async (raw) => {
        await expectBadRequest(decodeCursor(raw, key));
      }),
      { numRuns: 300 },
    );
  });

  it("rejects a validly signed payload of the wrong shape", async () => {
    for (const body of ["{}", "[]", "null", '{"r":"a","s":"b","v":[{}],"i":"c"}', '{"r":1,"s":"b","v":[],"i":"c"}', "not json"]) {
      await expectBadRequest(decodeCursor(await signRaw(body), key));
    }
  });

  it("uses the documented format", async () => {
    const p = { r: "tasks", s: "createdAt:asc,id:asc", v: ["2024-01-01T00:00:00.000Z"], i: "task_1" };
    expect(await encodeCursor(p, key)).toBe(await signRaw(JSON.stringify(p)));
  });

  it("refuses to encode values that would not round-trip", async () => {
    await expect(encodeCursor({ r: "a", s: "b", v: [Number.NaN], i: "c" }, key)).rejects.toThrow();
    await expect(encodeCursor({ r: "a", s: "b", v: [{}], i: "c" }, key)).rejects.toThrow();
  });
});
