// fetch for Node, over node:http(s), for calls that may wait minutes for their answer: a large import's commit
// (POST /imports/{id}/commit) answers when its one transaction commits, which for 300,000 tasks takes longer than the
// 300 s Node's own fetch (undici) waits for an answer's headers before failing with "fetch failed". It waits as long as
// the API takes; the answer's body streams (an export is never held whole). Plain JavaScript: `pm` and the bench use it.
import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";

/** @param {Request} request */
export async function fetchWithoutTimeout(request) {
  const url = new URL(request.url);
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    // The request's signal aborts it (Ctrl-C of `pm events --follow`, whose request waits up to 30 s for an event).
    const options = { method: request.method, headers: Object.fromEntries(request.headers), signal: request.signal };
    const sent = transport.request(url, options, (res) => {
      const headers = new Headers();
      for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
      const status = res.statusCode ?? 502;
      const empty = status === 204 || status === 304 || request.method === "HEAD";
      if (empty) res.resume();
      resolve(new Response(empty ? null : Readable.toWeb(res), { status, statusText: res.statusMessage, headers }));
    });
    sent.on("error", reject);
    sent.end(body);
  });
}
