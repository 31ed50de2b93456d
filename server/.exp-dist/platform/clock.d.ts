/** ISO 8601 UTC timestamp with milliseconds, the only time format Hearth stores and sends. */
export declare const nowIso: () => string;
/**
 * Creation time for rows listed newest first: strictly increasing within this process, so two rows
 * made in the same millisecond still list in the order they were made.
 */
export declare function creationIso(): string;
/** The UTC calendar day (YYYY-MM-DD) of a time, default now. */
export declare const utcDay: (date?: Date) => string;
