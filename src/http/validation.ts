import type { z } from "zod";

/** zod issues -> the API's validation body `{errors:{field:[msg]}}` (field = dotted path). */
export function zodErrors(error: z.ZodError): Record<string, string[]> {
  // Field names come from the request (an unknown `__proto__` or `constructor`): a Map, not an object's inherited keys.
  const errors = new Map<string, string[]>();
  const add = (field: string, message: string) => {
    const messages = errors.get(field);
    if (messages) messages.push(message);
    else errors.set(field, [message]);
  };
  for (const issue of error.issues) {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) add(path ? `${path}.${key}` : key, "Unknown field");
    } else {
      add(path || "body", issue.message);
    }
  }
  // fromEntries defines own properties, so `__proto__` is a key like any other.
  return Object.fromEntries(errors);
}
