// The scopes' names (docs/api.md, "Least privilege"): what the register states a resource's writes need, and what a
// route's policy declares it needs (src/http/policy.ts).
export const SCOPES = [
  "read",
  "tasks:write",
  "comments:write",
  "projects:write",
  "labels:write",
  "teams:write",
  "fields:write",
  "members:write",
  "keys:write",
  "webhooks:write",
  "import",
  "export",
] as const;
export type Scope = (typeof SCOPES)[number];
