/** fetch for Node that waits as long as the API takes to answer (see node-fetch.js); the body streams. */
export declare function fetchWithoutTimeout(request: Request): Promise<Response>;
