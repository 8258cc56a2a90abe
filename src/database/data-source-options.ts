import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as sqliteVec from 'sqlite-vec';
import { DataSource, DataSourceOptions, getMetadataArgsStorage } from 'typeorm';

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseTarget {
  dataDir: string;
  databaseUrl?: string;
  databaseSchema?: string;
}

export function dialectOf(target: Pick<DatabaseTarget, 'databaseUrl'>): Dialect {
  return target.databaseUrl?.startsWith('postgres') ? 'postgres' : 'sqlite';
}

// Migrations are found by file name, and so are entities for the tooling, so a module adds its
// entities without touching a central list; the same globs serve dist/*.js and src/*.ts.
const root = join(__dirname, '..');
const entityFiles = [join(root, '**', '*.entity.{js,ts}')];

/**
 * The entity classes the running app has loaded (every module imports its own). The app uses
 * these rather than the file glob, which would load a second copy of each class beside the
 * start-up bundle's.
 */
export function loadedEntities(): DataSourceOptions['entities'] {
  return getMetadataArgsStorage().tables.map((table) => table.target as () => unknown);
}

/** One function builds options for the app, the migration tooling and the tests. */
export function buildDataSourceOptions(
  target: DatabaseTarget,
  entities: DataSourceOptions['entities'] = entityFiles,
): DataSourceOptions {
  const dialect = dialectOf(target);
  const common = {
    entities,
    migrations: [join(root, 'migrations', dialect, '*.{js,ts}')],
    // Run by openDataSource (after initialize), which serialises replicas on PostgreSQL.
    migrationsRun: false,
    migrationsTransactionMode: 'each' as const,
    synchronize: false,
    logging: false,
  };
  if (dialect === 'postgres') {
    const schema = target.databaseSchema;
    // pg (and the client built on it) loaded on PostgreSQL only: a SQLite server does without.
    const pg = require('pg') as typeof import('pg');
    const { RetryingClient } = require('./retrying-client') as typeof import('./retrying-client');
    return {
      type: 'postgres',
      // The driver module itself: TypeORM would load it by a name the bundle cannot see, a second copy.
      driver: pg,
      url: target.databaseUrl,
      ...common,
      // pg-pool's `Client`: statements lost with their connection are sent again where that is safe (RetryingClient).
      extra: { max: 10, Client: RetryingClient, ...(schema ? { options: `-c search_path=${schema}` } : {}) },
      ...(schema ? { schema } : {}),
    };
  }
  mkdirSync(target.dataDir, { recursive: true });
  return {
    type: 'better-sqlite3',
    database: join(target.dataDir, 'keel.sqlite'),
    enableWAL: true,
    // better-sqlite3 runs synchronously; NORMAL is durable under WAL and much faster than FULL.
    // sqlite-vec: the memory surface's chunk vectors (vec0 tables, see SqliteVectorIndex).
    prepareDatabase: (db: { pragma(sql: string): unknown; loadExtension(file: string): void }) => {
      sqliteVec.load(db);
      db.pragma('busy_timeout = 5000');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
    },
    ...common,
  };
}

/** Any 64-bit key, the same in every Keel process: holds the migrations of one database to one process at a time. */
const MIGRATION_LOCK = 7_337_001;

/** Where a database's schema stands against this code's migrations (by migration name, oldest first). */
export interface SchemaState {
  applied: string[];
  pending: string[];
  /** Applied migrations this code does not know: the database was written by a newer Keel. */
  unknown: string[];
  /** The newest migration this code knows. */
  latest: string;
}

/** A database whose schema a newer Keel wrote: this code must not touch it. */
export class SchemaNewerError extends Error {
  constructor(readonly state: SchemaState) {
    super(
      `the database schema is newer than this Keel: it has migration ${state.unknown.at(-1)}, and this Keel knows migrations up to ${state.latest}. ` +
        'Run the Keel that wrote it (or a newer one), or restore a backup this version made.',
    );
  }
}

export async function schemaState(dataSource: DataSource): Promise<SchemaState> {
  const known = dataSource.migrations.map((m) => m.name ?? m.constructor.name).sort((a, b) => stamp(a) - stamp(b));
  const runner = dataSource.createQueryRunner();
  let applied: string[] = [];
  try {
    const table = dataSource.options.migrationsTableName ?? 'migrations';
    if (await runner.hasTable(table)) {
      const rows: { name: string }[] = await runner.query(`SELECT name FROM "${table}" ORDER BY timestamp ASC, id ASC`);
      applied = rows.map((r) => r.name);
    }
  } finally {
    await runner.release();
  }
  const done = new Set(applied);
  return { applied, pending: known.filter((name) => !done.has(name)), unknown: applied.filter((name) => !known.includes(name)), latest: known.at(-1) ?? '' };
}

/** A migration's timestamp: the digits its name ends with (TypeORM's `<Name><timestamp>`). */
function stamp(name: string): number {
  return Number(/(\d+)$/.exec(name)?.[1] ?? 0);
}

/**
 * Connects and, unless `migrate` is false, runs pending migrations. A database with migrations this
 * code does not know (written by a newer Keel) is refused (SchemaNewerError) before anything runs. On
 * PostgreSQL migrations run under a session advisory lock, so replicas started together on an empty
 * or outdated database take turns instead of racing to create the same tables; the ones that wait then
 * find nothing left to run.
 */
export async function openDataSource(options: DataSourceOptions, { migrate = true }: { migrate?: boolean } = {}): Promise<DataSource> {
  const dataSource = await new DataSource(options).initialize();
  try {
    const state = await schemaState(dataSource);
    if (state.unknown.length > 0) throw new SchemaNewerError(state);
    if (migrate && state.pending.length > 0) await runMigrations(dataSource);
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}

/**
 * Applies pending migrations: on SQLite one transaction each; on PostgreSQL all in one transaction
 * (DDL is transactional there: an upgrade lands whole or not at all, and a new database commits
 * once instead of once per migration), under the migration lock.
 */
export async function runMigrations(dataSource: DataSource): Promise<void> {
  if (dataSource.options.type !== 'postgres') {
    await dataSource.runMigrations({ transaction: 'each' });
    return;
  }
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await dataSource.runMigrations({ transaction: 'all' });
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.release();
  }
}
