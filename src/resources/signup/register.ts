// Its register entry (src/core/resources.ts).
export default { tag: "Account" } as const;
