import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';

/**
 * PostgreSQL error classes that mean the connection, not the statement, failed: admin_shutdown
 * (`pg_terminate_backend`, a restart), crash_shutdown, cannot_connect_now, and SQLSTATE class 08
 * (connection exceptions).
 */
const LOST_CODES = new Set(['57P01', '57P02', '57P03', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'SQLITE_BUSY']);
/** node-postgres's own words for a connection gone or never made (these errors carry no code). */
const LOST_MESSAGES = /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect)/;

/**
 * Whether `error` is a lost or unavailable database connection (PostgreSQL's backend terminated,
 * the server restarting, the pool out of connections) or, on SQLite, the file still locked after the
 * busy timeout: a request that met it can be sent again, so it is answered 503, not 500.
 */
export function isConnectionLoss(error: unknown): boolean {
  // TypeORM's answer to a query on a runner whose connection was dropped under it.
  if (error instanceof QueryRunnerAlreadyReleasedError || error instanceof QueryRunnerProviderAlreadyReleasedError) return true;
  for (let e = error as { code?: unknown; message?: unknown; driverError?: unknown } | undefined, depth = 0; e && depth < 3; depth++) {
    if (typeof e.code === 'string' && (LOST_CODES.has(e.code) || e.code.startsWith('08'))) return true;
    if (typeof e.message === 'string' && LOST_MESSAGES.test(e.message)) return true;
    e = e.driverError as typeof e;
  }
  return false;
}
