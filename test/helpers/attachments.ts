// Raw requests for attachments: bytes up, bytes (or JSON) down.
import { fetchApp } from "./api";

/** A raw request to the worker; JSON answers parsed. */
export async function send(method: string, path: string, key: string, init: { body?: BodyInit; headers?: Record<string, string> } = {}) {
  const res = await fetchApp(
    new Request(`http://api.test${path}`, { method, headers: { "svc-api-key": key, ...init.headers }, body: init.body }),
  );
  const type = res.headers.get("content-type") ?? "";
  const body = type.includes("json") ? await res.json<any>() : new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body: body as any };
}

/** POST the bytes as a file (Content-Length set by the Request from the bytes). */
export const upload = (path: string, key: string, bytes: Uint8Array, filename: string, headers: Record<string, string> = {}) =>
  send("POST", `${path}/attachments?filename=${encodeURIComponent(filename)}`, key, {
    body: bytes,
    headers: { "content-type": "text/plain", "content-length": String(bytes.byteLength), ...headers },
  });
