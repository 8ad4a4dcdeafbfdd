import { fetchWithoutTimeout } from "../client/node-fetch.js";
import { ConnectionError } from "./errors";

/**
 * fetch, with an unreachable API reported as such rather than as a bare "fetch failed". Over node:http, not Node's
 * fetch: a large import's commit may take longer than the 300 s that one waits for an answer (client/node-fetch.js).
 */
export function reporting(baseUrl: string) {
  return async (request: Request): Promise<Response> => {
    try {
      return await fetchWithoutTimeout(request);
    } catch (error) {
      const cause = error instanceof Error ? (error.cause instanceof Error ? error.cause : error).message : String(error);
      throw new ConnectionError(`cannot reach the API at ${baseUrl}: ${cause}`);
    }
  };
}
