// Its register entry (src/core/resources.ts).
export default { tag: "System" } as const;
