import { setTimeout as sleepFor } from 'node:timers/promises';

/**
 * Times in JSON: ISO 8601 in UTC with milliseconds and an explicit offset,
 * e.g. `2026-11-21T10:04:05.123+00:00` (contract §2).
 */
export function isoTime(t: Date | number): string {
  const d = typeof t === 'number' ? new Date(t) : t;
  return `${d.toISOString().slice(0, -1)}+00:00`; // toISOString always ends in Z
}

/**
 * Paces work to at most `rate` units a second (`rate` ≤ 0 or not finite: no limit): call it before each unit of
 * work with how many units are about to start; it resolves when they may (rejects when `signal` aborts).
 */
export function pacer(rate: number, signal?: AbortSignal): (units: number) => Promise<void> {
  if (!(rate > 0 && Number.isFinite(rate))) return async () => undefined;
  const start = performance.now();
  let started = 0;
  return async (units) => {
    const due = start + (started / rate) * 1000;
    started += units;
    const wait = due - performance.now();
    if (wait > 0) await sleepFor(wait, undefined, { signal });
  };
}
