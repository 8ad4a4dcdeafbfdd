// Its register entry (src/core/resources.ts).
export default { tag: "Events", reads: ["events"] } as const;
