// Its register entry (src/core/resources.ts).
export default { tag: "Search", reads: ["search"] } as const;
