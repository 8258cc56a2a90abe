import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataSourceOptions } from 'typeorm';

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseTarget {
  dataDir: string;
  databaseUrl?: string;
  databaseSchema?: string;
}

export function dialectOf(target: Pick<DatabaseTarget, 'databaseUrl'>): Dialect {
  return target.databaseUrl?.startsWith('postgres') ? 'postgres' : 'sqlite';
}

// Entities and migrations are found by file name, so a module adds its entities without
// touching a central list; the same globs serve the app (dist/*.js) and tools run on src (*.ts).
const root = join(__dirname, '..');
const entities = [join(root, '**', '*.entity.{js,ts}')];

/** One function builds options for the app, the migration tooling and the tests. */
export function buildDataSourceOptions(target: DatabaseTarget): DataSourceOptions {
  const dialect = dialectOf(target);
  const common = {
    entities,
    migrations: [join(root, 'migrations', dialect, '*.{js,ts}')],
    migrationsRun: true,
    migrationsTransactionMode: 'each' as const,
    synchronize: false,
    logging: false,
  };
  if (dialect === 'postgres') {
    const schema = target.databaseSchema;
    return {
      type: 'postgres',
      url: target.databaseUrl,
      ...common,
      ...(schema ? { schema, extra: { options: `-c search_path=${schema}`, max: 10 } } : { extra: { max: 10 } }),
    };
  }
  mkdirSync(target.dataDir, { recursive: true });
  return {
    type: 'better-sqlite3',
    database: join(target.dataDir, 'keel.sqlite'),
    enableWAL: true,
    // better-sqlite3 runs synchronously; NORMAL is durable under WAL and much faster than FULL.
    prepareDatabase: (db: { pragma(sql: string): unknown }) => {
      db.pragma('busy_timeout = 5000');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
    },
    ...common,
  };
}
