// Its register entry (src/core/resources.ts).
export default { tag: "Device flow" } as const;
