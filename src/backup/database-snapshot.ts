import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client, types } from 'pg';
import * as sqliteVec from 'sqlite-vec';
import type { DatabaseTarget } from '../database/data-source-options';
import { dialectOf } from '../database/data-source-options';
import { canonical, CanonicalValue, inReferenceOrder, isCopied, quote, TableInfo } from './tables';

/** Rows read per round trip. */
const BATCH = 1000;

/**
 * One consistent view of a Keel database, read while the server may keep writing: a read transaction
 * on SQLite (WAL lets writers go on), a REPEATABLE READ READ ONLY transaction on PostgreSQL. Values come
 * out canonical (tables.ts), so a snapshot of either engine can be written into the other.
 */
interface DatabaseSnapshot {
  readonly dialect: 'sqlite' | 'postgres';
  /** Applied migrations, oldest first (empty for a database Keel never started on). */
  migrations(): Promise<string[]>;
  /** The tables copied, each after the tables it references. */
  tables(): Promise<TableInfo[]>;
  /** A table's rows, `columns` in order, in batches. */
  rows(table: TableInfo): AsyncIterable<CanonicalValue[][]>;
  close(): Promise<void>;
}

export async function openSnapshot(target: DatabaseTarget): Promise<DatabaseSnapshot> {
  if (dialectOf(target) === 'postgres') return PostgresSnapshot.open(target.databaseUrl!, target.databaseSchema);
  const file = join(target.dataDir, 'keel.sqlite');
  if (!existsSync(file)) throw new Error(`there is no database at ${file}`);
  return new SqliteSnapshot(file);
}

class SqliteSnapshot implements DatabaseSnapshot {
  readonly dialect = 'sqlite' as const;
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    sqliteVec.load(this.db);
    this.db.pragma('busy_timeout = 5000');
    // Every read below sees the database as it was here.
    this.db.exec('BEGIN');
    this.db.prepare('SELECT count(*) FROM sqlite_master').get();
  }

  migrations(): Promise<string[]> {
    const exists = this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'`).get();
    const rows = exists ? (this.db.prepare('SELECT name FROM migrations ORDER BY timestamp, id').all() as { name: string }[]) : [];
    return Promise.resolve(rows.map((r) => r.name));
  }

  tables(): Promise<TableInfo[]> {
    const names = (this.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as { name: string }[]).map((r) => r.name).filter(isCopied);
    const tables = names.map((name) => {
      // table_xinfo: hidden 2 and 3 are generated columns, which are computed, not copied.
      const columns = this.db.pragma(`table_xinfo(${quote(name)})`) as { name: string; pk: number; hidden: number }[];
      const references = (this.db.pragma(`foreign_key_list(${quote(name)})`) as { table: string }[]).map((f) => f.table);
      return {
        name,
        columns: columns.filter((c) => c.hidden === 0).map((c) => c.name),
        key: columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
        references,
      };
    });
    return Promise.resolve(inReferenceOrder(tables));
  }

  // Synchronous underneath (better-sqlite3), an async iterable like PostgreSQL's.
  // eslint-disable-next-line @typescript-eslint/require-await
  async *rows(table: TableInfo): AsyncIterable<CanonicalValue[][]> {
    const order = table.key.length ? ` ORDER BY ${table.key.map(quote).join(', ')}` : '';
    const statement = this.db.prepare(`SELECT ${table.columns.map(quote).join(', ')} FROM ${quote(table.name)}${order}`).raw(true);
    let batch: CanonicalValue[][] = [];
    for (const row of statement.iterate() as Iterable<unknown[]>) {
      batch.push(row.map(canonical));
      if (batch.length >= BATCH) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  }

  close(): Promise<void> {
    if (this.db.inTransaction) this.db.exec('COMMIT');
    this.db.close();
    return Promise.resolve();
  }
}

/** Values as PostgreSQL sends them (text), except numbers and booleans: canonical, and equal to SQLite's. */
const { BOOL, BYTEA, FLOAT4, FLOAT8, INT2, INT4, INT8, OID } = types.builtins;
const NUMERIC_TYPES = new Set<number>([INT2, INT4, INT8, OID, FLOAT4, FLOAT8]);
const rawTypes = {
  getTypeParser: (oid: number) => {
    if (oid === Number(BOOL)) return (value: string) => (value === 't' ? 1 : 0);
    if (NUMERIC_TYPES.has(oid)) return (value: string) => (Number.isSafeInteger(Number(value)) || !/^-?\d+$/.test(value) ? Number(value) : value);
    if (oid === Number(BYTEA)) return (value: string) => ({ $b64: Buffer.from(value.slice(2), 'hex').toString('base64') });
    return (value: string) => value;
  },
};

class PostgresSnapshot implements DatabaseSnapshot {
  readonly dialect = 'postgres' as const;
  private cursors = 0;

  private constructor(private readonly client: Client) {}

  static async open(url: string, schema?: string): Promise<PostgresSnapshot> {
    const client = new Client({ connectionString: url, types: rawTypes, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
    client.on('error', () => undefined);
    await client.connect();
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // Timestamps without a zone come out as stored, whatever the server's zone.
    await client.query(`SET LOCAL TIME ZONE 'UTC'`);
    return new PostgresSnapshot(client);
  }

  async migrations(): Promise<string[]> {
    const { rows: exists } = await this.client.query(`SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'migrations'`);
    if (!exists.length) return [];
    const { rows } = await this.client.query<{ name: string }>('SELECT name FROM migrations ORDER BY timestamp, id');
    return rows.map((r) => r.name);
  }

  async tables(): Promise<TableInfo[]> {
    const { rows: names } = await this.client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const tables: TableInfo[] = [];
    for (const { table_name: name } of names.filter((n) => isCopied(n.table_name))) {
      const { rows: columns } = await this.client.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
        [name],
      );
      const { rows: key } = await this.client.query<{ column: string }>(
        `SELECT a.attname AS column FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
         WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)`,
        [quote(name)],
      );
      const { rows: references } = await this.client.query<{ referenced: string }>(
        `SELECT confrelid::regclass::text AS referenced FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'f'`,
        [quote(name)],
      );
      tables.push({ name, columns: columns.map((c) => c.column_name), key: key.map((k) => k.column), references: references.map((r) => r.referenced.replace(/^"|"$/g, '')) });
    }
    return inReferenceOrder(tables);
  }

  async *rows(table: TableInfo): AsyncIterable<CanonicalValue[][]> {
    const cursor = `keel_backup_${++this.cursors}`;
    const order = table.key.length ? ` ORDER BY ${table.key.map(quote).join(', ')}` : '';
    await this.client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${table.columns.map(quote).join(', ')} FROM ${quote(table.name)}${order}`);
    try {
      for (;;) {
        const { rows } = await this.client.query({ text: `FETCH ${BATCH} FROM ${cursor}`, rowMode: 'array' });
        if (!rows.length) break;
        yield (rows as unknown[][]).map((row) => row.map(canonical));
      }
    } finally {
      await this.client.query(`CLOSE ${cursor}`).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await this.client.query('COMMIT').catch(() => undefined);
    await this.client.end().catch(() => undefined);
  }
}
