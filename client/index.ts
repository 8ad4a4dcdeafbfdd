// The typed client of the API: openapi-fetch over the types generated from the served document (client/api.d.ts,
// `npm run gen:client`), with the credential header. The document names each list parameter as it is sent
// (`filter[eq][status]`, `sort[createdAt]`; `filter[in][…]` an array), so openapi-fetch's own query serializer writes them.
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
  return createClient<paths>({ baseUrl, headers, ...(fetch ? { fetch } : {}) });
}
