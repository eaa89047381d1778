/** Database error classification shared by every repository (both dialects). */

/**
 * True when `e` is a unique-constraint violation: better-sqlite3 reports `SQLITE_CONSTRAINT_UNIQUE` /
 * `SQLITE_CONSTRAINT_PRIMARYKEY`, pg reports SQLSTATE 23505.
 */
export function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return true;
  return /UNIQUE constraint failed|duplicate key value/i.test(String((e as Error | null)?.message ?? ''));
}
