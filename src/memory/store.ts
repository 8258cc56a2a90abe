import { KeyedMutex } from '../common/keyed-mutex';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/** A query function bound to one connection (inside a transaction or not). SQL uses `?` placeholders. */
export type Query = <T = unknown>(sql: string, params?: unknown[]) => Promise<T[]>;

/** `?, ?, ?`: one placeholder per value, for `IN (…)` and `VALUES (…)`. */
export const placeholders = (values: readonly unknown[]): string => values.map(() => '?').join(', ');

/** Rows or ids in slices of `size`, so that no statement passes the engines' limit on parameters. */
export function slices<T>(values: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size));
  return out;
}

/**
 * The module's raw-SQL access, one code path for both dialects. SQLite has one connection, so
 * transactions are serialised here (two interleaved async transactions would share it).
 */
@Injectable()
export class IngestionStore {
  readonly dialect: 'sqlite' | 'postgres';
  private readonly sqliteWrites = new KeyedMutex();
  /** Work to run once a transaction's query function has committed (see afterCommit). */
  private readonly commitHooks = new WeakMap<Query, (() => void)[]>();

  constructor(@InjectDataSource() readonly dataSource: DataSource) {
    this.dialect = dataSource.options.type === 'postgres' ? 'postgres' : 'sqlite';
  }

  private toDialect(sql: string): string {
    if (this.dialect === 'sqlite') return sql;
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  }

  private bind(manager: EntityManager): Query {
    return async <T>(sql: string, params: unknown[] = []) => {
      const values = params.map((p) => (typeof p === 'boolean' && this.dialect === 'sqlite' ? (p ? 1 : 0) : p));
      const rows: unknown = await manager.query(this.toDialect(sql), values);
      // PostgreSQL UPDATE … RETURNING answers [rows, count].
      if (this.dialect === 'postgres' && Array.isArray(rows) && rows.length === 2 && Array.isArray(rows[0]) && typeof rows[1] === 'number') {
        return rows[0] as T[];
      }
      return (Array.isArray(rows) ? rows : []) as T[];
    };
  }

  get query(): Query {
    return this.bind(this.dataSource.manager);
  }

  /**
   * `relaxed`: pipeline bookkeeping that a crash may lose without harm (the lease expires and the
   * idempotent stages run again), so PostgreSQL need not flush WAL at each commit.
   */
  async transaction<T>(fn: (q: Query) => Promise<T>, options: { relaxed?: boolean } = {}): Promise<T> {
    const hooks: (() => void)[] = [];
    const run = () =>
      this.dataSource.transaction(async (manager) => {
        const q = this.bind(manager);
        this.commitHooks.set(q, hooks);
        if (options.relaxed && this.dialect === 'postgres') await q('SET LOCAL synchronous_commit = off');
        return fn(q);
      });
    const result = await (this.dialect === 'sqlite' ? this.sqliteWrites.run('tx', run) : run());
    for (const hook of hooks) hook();
    return result;
  }

  /**
   * Runs `hook` once the transaction `q` belongs to has committed (never when it rolls back), or at
   * once when `q` is not a transaction's. What other processes are told must wait for the commit:
   * told earlier, they would read the rows as they were.
   */
  afterCommit(q: Query, hook: () => void): void {
    const hooks = this.commitHooks.get(q);
    if (hooks) hooks.push(hook);
    else hook();
  }

  /** `FOR UPDATE` where the dialect has row locks (SQLite writers are already serialised). */
  get forUpdate(): string {
    return this.dialect === 'postgres' ? ' FOR UPDATE' : '';
  }
}
