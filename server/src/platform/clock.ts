/** ISO 8601 UTC timestamp with milliseconds, the only time format Hearth stores and sends. */
export const nowIso = (): string => new Date().toISOString();

/** The UTC calendar day (YYYY-MM-DD) of a time, default now. */
export const utcDay = (date: Date = new Date()): string => date.toISOString().slice(0, 10);
