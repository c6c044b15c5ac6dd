/** An object (not null), whose fields are still the caller's to check: the first test on any decoded-by-hand payload. */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null
