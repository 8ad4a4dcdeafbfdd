// Its register entry (src/core/resources.ts).
export default { tag: "Batch" } as const;
