import { ConnectionError } from "./errors";

/** fetch, with an unreachable API reported as such rather than as a bare "fetch failed". */
export function reporting(baseUrl: string) {
  return async (request: Request): Promise<Response> => {
    try {
      return await fetch(request);
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new ConnectionError(`cannot reach the API at ${baseUrl}: ${cause}`);
    }
  };
}
