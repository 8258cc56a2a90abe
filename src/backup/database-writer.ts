import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource, Migration, MigrationExecutor, QueryRunner } from 'typeorm';
import { buildDataSourceOptions, dialectOf } from '../database/data-source-options';
import type { DatabaseTarget } from '../database/data-source-options';
import { rebuildFullTextSql } from '../memory/search/full-text-index';
import { rebuildVectorsSql } from '../memory/search/sqlite-vector-index';
import type { Query } from '../memory/store';
import { bindable, canonical, CanonicalValue, quote, ReadBackChecksum } from './tables';

/** Bound values per INSERT statement (both engines allow far more; this keeps statements small). */
const VALUES_PER_STATEMENT = 5000;

/** PostgreSQL types read as values (the rest as text), and those of them that are numbers (int8 comes as text). */
const KEPT_TYPES = /^(smallint|integer|bigint|real|double precision|boolean|bytea)$/;
const NUMBER_TYPES = /^(smallint|integer|bigint|real|double precision)$/;

/** What the target already holds, in words, or undefined when it holds nothing of Keel's. */
type Occupant = string | undefined;

/**
 * Writes a Keel database from copied rows, all or nothing: on PostgreSQL everything (schema, rows, the
 * rebuilt indexes) happens in one transaction; on SQLite into a new file beside `keel.sqlite` that
 * replaces it only once complete. An interrupted restore or move leaves the target as it was.
 *
 * The schema is made by this code's own migrations, first those the copy was written at, then (after
 * the rows are in) the newer ones: an older backup is upgraded the way an older database is at start.
 */
export class DatabaseWriter {
  private readonly executor: MigrationExecutor;
  private readonly dialect: 'sqlite' | 'postgres';

  private constructor(
    private readonly dataSource: DataSource,
    private readonly runner: QueryRunner,
    private readonly files: { building: string; final: string } | undefined,
  ) {
    this.executor = new MigrationExecutor(dataSource, runner);
    this.executor.transaction = 'none';
    this.dialect = dataSource.options.type === 'postgres' ? 'postgres' : 'sqlite';
  }

  /** What `target` already holds (a database with Keel's tables), in words; undefined when it is empty. */
  static async occupant(target: DatabaseTarget): Promise<Occupant> {
    if (dialectOf(target) === 'sqlite') {
      const file = join(target.dataDir, 'keel.sqlite');
      return existsSync(file) ? `the data directory ${target.dataDir} already holds a database (keel.sqlite)` : undefined;
    }
    const dataSource = await new DataSource({ ...buildDataSourceOptions(target, []), migrations: [] }).initialize();
    try {
      const [{ n }] = await dataSource.query<{ n: string }[]>(`SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = current_schema()`);
      const url = new URL(target.databaseUrl!);
      return Number(n) > 0 ? `the database ${url.host}${url.pathname} already holds ${n} table(s)` : undefined;
    } finally {
      await dataSource.destroy();
    }
  }

  /** Opens the target for writing; with `replace`, what it held is dropped in the same transaction (PostgreSQL) or replaced at the end (SQLite). */
  static async open(target: DatabaseTarget, { replace }: { replace: boolean }): Promise<DatabaseWriter> {
    const options = buildDataSourceOptions(target, []);
    let files: { building: string; final: string } | undefined;
    if (options.type === 'better-sqlite3') {
      files = { building: join(target.dataDir, `keel.sqlite.restoring-${process.pid}`), final: options.database };
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${files.building}${suffix}`, { force: true });
    }
    const dataSource = await new DataSource({ ...options, ...(files ? { database: files.building } : {}) } as typeof options).initialize();
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    if (files) await runner.query('PRAGMA foreign_keys = OFF');
    await runner.startTransaction();
    const writer = new DatabaseWriter(dataSource, runner, files);
    if (replace && !files) await writer.dropEverything();
    return writer;
  }

  /** This code's migrations, oldest first. */
  knownMigrations(): Migration[] {
    return this.dataSource.migrations
      .map((instance) => {
        const name = instance.name ?? instance.constructor.name;
        return new Migration(undefined, Number(name.slice(-13)), name, instance);
      })
      .sort((a, b) => a.timestamp - b.timestamp);
  }

  /**
   * This code's migrations that make the schema a copy was written at (`applied`, from either engine),
   * or undefined when a newer Keel wrote it. The engines' migrations share names but not timestamps
   * (`Memory1795322717987` on SQLite is `Memory1795322718220` on PostgreSQL), and a few exist on one only
   * (vec0 tables, GIN indexes): the schema is every migration up to the one named like the copy's newest.
   */
  migrationsFor(applied: string[]): Migration[] | undefined {
    const known = this.knownMigrations();
    const newest = logicalName(applied.at(-1) ?? '');
    const last = known.findLastIndex((m) => logicalName(m.name) === newest);
    return last < 0 ? undefined : known.slice(0, last + 1);
  }

  /**
   * Makes the schema a copy was written at (see migrationsFor), then empties the tables the copy fills:
   * seed rows a migration inserted are in the copy as the user left them.
   */
  async createSchema(migrations: Migration[], tables: string[]): Promise<void> {
    for (const migration of migrations) await this.executor.executeMigration(migration);
    for (const table of tables) if ((await this.columnsOf(table)).length) await this.runner.query(`DELETE FROM ${quote(table)}`);
  }

  /** Inserts rows (`columns` of `table` in the copy; columns the target does not have are dropped). */
  async insert(table: string, columns: string[], rows: CanonicalValue[][]): Promise<void> {
    const perRow = columns.length;
    const rowsPerStatement = Math.max(1, Math.floor(VALUES_PER_STATEMENT / perRow));
    const columnList = columns.map(quote).join(', ');
    for (let start = 0; start < rows.length; start += rowsPerStatement) {
      const slice = rows.slice(start, start + rowsPerStatement);
      let n = 0;
      const placeholder = () => (this.dialect === 'postgres' ? `$${++n}` : '?');
      const values = slice.map(() => `(${columns.map(placeholder).join(', ')})`).join(', ');
      await this.runner.query(`INSERT INTO ${quote(table)} (${columnList}) VALUES ${values}`, slice.flat().map(bindable));
    }
  }

  /** The target's columns of `table`, so a copy's columns it lacks (or has extra) are known. */
  async columnsOf(table: string): Promise<string[]> {
    if (this.dialect === 'sqlite') return ((await this.runner.query(`SELECT name FROM pragma_table_xinfo(?) WHERE hidden = 0`, [table])) as { name: string }[]).map((c) => c.name);
    const rows = (await this.runner.query(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER'`,
      [table],
    )) as { column_name: string }[];
    return rows.map((r) => r.column_name);
  }

  /**
   * After the rows: the search and vector indexes built from them, PostgreSQL's id sequences moved past
   * the copied ids, and on SQLite every foreign key checked (they were off while tables filled).
   */
  async finishRows(): Promise<void> {
    for (const sql of rebuildFullTextSql(this.dialect)) await this.runner.query(sql);
    if (this.dialect === 'sqlite') {
      const query = ((sql: string, params?: unknown[]) => this.runner.query(sql, params)) as Query;
      for (const sql of await rebuildVectorsSql(query)) await this.runner.query(sql);
      const broken = (await this.runner.query('PRAGMA foreign_key_check')) as unknown[];
      if (broken.length) throw new Error(`${broken.length} row(s) reference rows that are not there (first: ${JSON.stringify(broken[0])})`);
      return;
    }
    const sequences = (await this.runner.query(
      `SELECT table_name, column_name, pg_get_serial_sequence(quote_ident(table_name), column_name) AS sequence FROM information_schema.columns
       WHERE table_schema = current_schema() AND column_default LIKE 'nextval(%'`,
    )) as { table_name: string; column_name: string; sequence: string | null }[];
    for (const { table_name, column_name, sequence } of sequences) {
      if (!sequence) continue;
      await this.runner.query(`SELECT setval($1, GREATEST((SELECT MAX(${quote(column_name)}) FROM ${quote(table_name)}), 1))`, [sequence]);
    }
  }

  /**
   * The checksum of a table as the target now holds it, its values read in the canonical form a snapshot
   * reads: on PostgreSQL numbers as numbers, booleans as 1/0, bytes as bytes and everything else as its text.
   */
  async checksum(table: string, columns: string[]): Promise<ReadBackChecksum> {
    const types = this.dialect === 'postgres' ? await this.columnTypes(table) : new Map<string, string>();
    const select = columns.map((c, i) => `${this.dialect === 'postgres' && !KEPT_TYPES.test(types.get(c) ?? '') ? `${quote(c)}::text` : quote(c)} AS "c${i}"`);
    const rows = (await this.runner.query(`SELECT ${select.join(', ')} FROM ${quote(table)}`)) as Record<string, unknown>[];
    const checksum = new ReadBackChecksum();
    for (const row of rows) {
      checksum.add(
        columns.map((c, i) => {
          const value = row[`c${i}`];
          return canonical(value !== null && NUMBER_TYPES.test(types.get(c) ?? '') ? Number(value) : value);
        }),
      );
    }
    return checksum;
  }

  private async columnTypes(table: string): Promise<Map<string, string>> {
    const rows = (await this.runner.query(`SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`, [table])) as {
      column_name: string;
      data_type: string;
    }[];
    return new Map(rows.map((r) => [r.column_name, r.data_type]));
  }

  /** Runs this code's migrations the copy had not had yet: the data is upgraded as at start. */
  async upgrade(): Promise<string[]> {
    const applied = new Set(((await this.runner.query(`SELECT name FROM ${quote('migrations')}`)) as { name: string }[]).map((r) => r.name));
    const pending = this.knownMigrations().filter((m) => !applied.has(m.name));
    for (const migration of pending) await this.executor.executeMigration(migration);
    return pending.map((m) => m.name);
  }

  /** Makes it all visible at once: the transaction commits, the SQLite file takes the database's place. */
  async commit(): Promise<void> {
    await this.runner.commitTransaction();
    await this.close();
    if (this.files) {
      for (const suffix of ['-wal', '-shm']) rmSync(`${this.files.final}${suffix}`, { force: true });
      renameSync(this.files.building, this.files.final);
    }
  }

  /** Leaves the target as it was. */
  async abandon(): Promise<void> {
    if (this.runner.isTransactionActive) await this.runner.rollbackTransaction().catch(() => undefined);
    await this.close();
    if (this.files) for (const suffix of ['', '-wal', '-shm']) rmSync(`${this.files.building}${suffix}`, { force: true });
  }

  private async close(): Promise<void> {
    if (!this.runner.isReleased) await this.runner.release();
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }

  /** `--force` on PostgreSQL: every table of the schema goes, inside the restore's transaction. */
  private async dropEverything(): Promise<void> {
    const tables = (await this.runner.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)) as { table_name: string }[];
    if (tables.length) await this.runner.query(`DROP TABLE ${tables.map((t) => quote(t.table_name)).join(', ')} CASCADE`);
  }
}

/** A migration's name without its timestamp: the same on both engines. */
function logicalName(name: string): string {
  return name.replace(/\d+$/, '');
}
