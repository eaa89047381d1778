/**
 * Times in JSON: ISO 8601 in UTC with milliseconds and an explicit offset,
 * e.g. `2026-11-21T10:04:05.123+00:00` (contract §2).
 */
export function isoTime(t: Date | number): string {
  const d = typeof t === 'number' ? new Date(t) : t;
  return `${d.toISOString().slice(0, -1)}+00:00`; // toISOString always ends in Z
}
