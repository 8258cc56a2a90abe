import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * The pg pool TypeORM keeps on PostgreSQL, or undefined on SQLite (one connection, no pool). A hot
 * statement sent through it skips TypeORM's query runner (its logging, broadcasts and runner
 * bookkeeping) while keeping the pool's `RetryingClient`.
 */
export function pgPool(dataSource: DataSource): Pool | undefined {
  return dataSource.options.type === 'postgres' ? (dataSource.driver as unknown as { master: Pool }).master : undefined;
}

/** One statement on a pooled connection, in the promise form the pool's `RetryingClient` retries; resolves to its rows. */
export async function queryPool(pool: Pool, sql: string, parameters: unknown[]): Promise<unknown[]> {
  const client = await pool.connect();
  try {
    return (await client.query(sql, parameters)).rows;
  } finally {
    client.release();
  }
}
