// The typed client of the API: openapi-fetch over the types generated from the served document (client/api.d.ts,
// `npm run gen:client`), with the credential header and the query syntax of the list endpoints.
import createClient, { type Client } from "openapi-fetch";
import type { components, operations, paths } from "./api";

export type { components, operations, paths };
export type Schemas = components["schemas"];
export type PmClient = Client<paths>;

export interface PmClientOptions {
  /** The API's origin, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** Sent as `svc-api-key`. */
  apiKey?: string;
  /** A device-flow access token (JWT), sent as `Authorization: Bearer`. */
  token?: string;
  /** Another fetch, e.g. a test harness's in-process one; defaults to the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
}

export function createPmClient({ baseUrl, apiKey, token, fetch }: PmClientOptions): PmClient {
  const headers: Record<string, string> = {};
  if (apiKey) headers["svc-api-key"] = apiKey;
  else if (token) headers.authorization = `Bearer ${token}`;
  return createClient<paths>({ baseUrl, headers, querySerializer: serializeQuery, ...(fetch ? { fetch } : {}) });
}

/**
 * Query parameters as the list endpoints read them: objects nest as brackets to any depth (`filter[eq][status]=DONE`,
 * `sort[createdAt]=desc`; openapi-fetch's own serializer goes one level deep), arrays repeat their parameter
 * (`filter[in][priority]=HIGH&filter[in][priority]=URGENT`), and `null` is the literal `null` the filters match
 * absent values with. Brackets stay readable; names and values are percent-encoded otherwise.
 */
function serializeQuery(query: Record<string, unknown>): string {
  const pairs: string[] = [];
  const add = (key: string, value: unknown): void => {
    if (value === undefined) return;
    if (Array.isArray(value)) {
      for (const item of value) add(key, item);
    } else if (value !== null && typeof value === "object") {
      for (const [name, inner] of Object.entries(value)) add(`${key}[${encodeURIComponent(name)}]`, inner);
    } else {
      pairs.push(`${key}=${encodeURIComponent(String(value))}`);
    }
  };
  for (const [name, value] of Object.entries(query)) add(encodeURIComponent(name), value);
  return pairs.join("&");
}
