const errorContent = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };

/**
 * Failures any operation can meet whatever its route declares, from the error mapper (docs/api.md, conventions):
 * - 500 INTERNAL, an unexpected failure (a bug, a database error that is neither an outage nor a conflict), with no
 *   stack or SQL; `details.requestId` names the request in the logs;
 * - 400 BAD_REQUEST on an operation that takes input (path, query or body): a value PostgreSQL cannot store or
 *   compare (a data exception, e.g. a NUL character in an id) is the request's fault.
 */
export function documentGenericFailures(op: Record<string, unknown>) {
  const responses = op.responses as Record<string, unknown>;
  responses["500"] ??= {
    description: "INTERNAL: an unexpected failure; `details.requestId` names the request in the logs",
    content: errorContent,
  };
  const parameters = (op.parameters ?? []) as Array<{ in?: string }>;
  if (op.requestBody || parameters.some((parameter) => parameter.in === "path" || parameter.in === "query")) {
    responses["400"] ??= { description: "BAD_REQUEST: a value in the request cannot be stored or compared", content: errorContent };
  }
}
