/**
 * Any operation may fail unexpectedly (a bug, a database error that is neither an outage nor a conflict): the error
 * mapper answers 500 INTERNAL in the `Error` shape, with no stack or SQL, `details.requestId` naming the request in
 * the logs (contract §1). Documented once for every operation, so a client generated from the document knows it.
 */
export function documentInternalError(responses: Record<string, unknown>) {
  responses["500"] ??= {
    description: "INTERNAL: an unexpected failure; `details.requestId` names the request in the logs",
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  };
}
