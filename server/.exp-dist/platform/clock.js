/** ISO 8601 UTC timestamp with milliseconds, the only time format Hearth stores and sends. */
export const nowIso = () => new Date().toISOString();
let lastCreation = 0;
/**
 * Creation time for rows listed newest first: strictly increasing within this process, so two rows
 * made in the same millisecond still list in the order they were made.
 */
export function creationIso() {
  lastCreation = Math.max(Date.now(), lastCreation + 1);
  return new Date(lastCreation).toISOString();
}
/** The UTC calendar day (YYYY-MM-DD) of a time, default now. */
export const utcDay = (date = new Date()) => date.toISOString().slice(0, 10);
//# sourceMappingURL=clock.js.map
