// Its register entry (src/core/resources.ts).
// Revoking one's OAuth grants, like one's keys.
export default { tag: "OAuth", scope: "keys:write" } as const;
