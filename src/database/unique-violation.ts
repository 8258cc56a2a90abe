/** Driver codes for a second row with the same unique key: better-sqlite3's and PostgreSQL's SQLSTATE unique_violation. */
const UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', '23505']);

/**
 * Whether `error` is the database refusing a duplicate unique key, on either engine. Read from the
 * driver's code (TypeORM's QueryFailedError carries the driver's error as `driverError`), never from
 * the message, whose words differ between drivers and versions and may quote user data.
 */
export function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: unknown; driverError?: unknown } | undefined, depth = 0; e && typeof e === 'object' && depth < 3; depth++) {
    if (typeof e.code === 'string' && UNIQUE_CODES.has(e.code)) return true;
    e = e.driverError as typeof e;
  }
  return false;
}
