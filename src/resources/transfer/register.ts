// Its register entry (src/core/resources.ts).
// Exports and imports of teams and workspaces (their routes declare their scopes, `export` and `import`).
export default { tag: "Imports" } as const;

// An import sent in parts: opening, filling, committing and discarding it.
export const imports = { tag: "Imports", scope: "import", reads: ["imports"], conditional: false } as const;
