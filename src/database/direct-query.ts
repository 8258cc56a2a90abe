import type { Database, Statement } from 'better-sqlite3';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/** One statement sent to the engine's own driver; resolves to its rows (none for a write). */
export type DirectQuery = (sql: string, parameters: unknown[]) => Promise<unknown[]>;

/**
 * The pg pool TypeORM keeps on PostgreSQL, or undefined on SQLite (one connection, no pool). A hot
 * statement sent through it skips TypeORM's query runner (its logging, broadcasts and runner
 * bookkeeping) while keeping the pool's `RetryingClient`.
 */
export function pgPool(dataSource: DataSource): Pool | undefined {
  return dataSource.options.type === 'postgres' ? (dataSource.driver as unknown as { master: Pool }).master : undefined;
}

/** The name each statement text is prepared under, on every connection of the process's pools. */
const statementNames = new Map<string, string>();

/**
 * One statement on a pooled connection, prepared there under its name the first time it is sent
 * (PostgreSQL's CPU a session create: 0.064–0.075 ms with its INSERT parsed and planned each time,
 * 0.047–0.050 prepared; docs/performance.md, stop 44), in the promise form the pool's `RetryingClient`
 * retries; resolves to its rows.
 */
async function queryPool(pool: Pool, sql: string, parameters: unknown[]): Promise<unknown[]> {
  let name = statementNames.get(sql);
  if (name === undefined) statementNames.set(sql, (name = `keel_${statementNames.size + 1}`));
  const client = await pool.connect();
  try {
    return (await client.query({ name, text: sql, values: parameters })).rows;
  } finally {
    client.release();
  }
}

/**
 * Hot statements of fixed text sent past TypeORM's query runner (its logging, broadcasts, copy of
 * the parameters and three awaits a statement), each text prepared once: on PostgreSQL on each of the
 * pool's connections (`queryPool`), on SQLite on better-sqlite3's connection. That is the connection
 * TypeORM itself uses, so a statement sent while a transaction is open joins it, exactly as through
 * `DataSource.query`. Values go to the driver as they are: no booleans (better-sqlite3 binds no `true`).
 */
export function directQuery(dataSource: DataSource): DirectQuery {
  const pool = pgPool(dataSource);
  if (pool) return (sql, parameters) => queryPool(pool, sql, parameters);
  const connection = (dataSource.driver as unknown as { databaseConnection: Database }).databaseConnection;
  const prepared = new Map<string, Statement<unknown[]>>();
  // eslint-disable-next-line @typescript-eslint/require-await -- the statement runs synchronously; callers get its promise form
  return async (sql, parameters) => {
    let statement = prepared.get(sql);
    if (statement === undefined) prepared.set(sql, (statement = connection.prepare<unknown[]>(sql)));
    // An array binds its items as the anonymous parameters (no spread of a batch's hundreds of values).
    if (statement.reader) return statement.all(parameters);
    statement.run(parameters);
    return [];
  };
}
