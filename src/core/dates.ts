/** API timestamps: ISO 8601 UTC with milliseconds and `Z` (contract §1). */
export const iso = (d: Date) => d.toISOString();
export const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);
