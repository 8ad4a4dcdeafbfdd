import type { z } from "zod";

/** zod issues -> the spec's validation body `{errors:{field:[msg]}}` (field = dotted path). */
export function zodErrors(error: z.ZodError): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => {
    errors[field] ??= [];
    errors[field].push(message);
  };
  for (const issue of error.issues) {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) add(path ? `${path}.${key}` : key, "Unknown field");
    } else {
      add(path || "body", issue.message);
    }
  }
  return errors;
}
