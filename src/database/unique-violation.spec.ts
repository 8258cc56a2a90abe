import { DataSource, DataSourceOptions, QueryFailedError } from 'typeorm';
import { isUniqueViolation } from './unique-violation';

/** The error a statement throws, through TypeORM as the services meet it (a QueryFailedError). */
async function failure(db: DataSource, sql: string): Promise<unknown> {
  try {
    await db.query(sql);
  } catch (error) {
    return error;
  }
  throw new Error(`${sql} succeeded`);
}

const engines: [string, DataSourceOptions][] = [['SQLite (better-sqlite3, in memory)', { type: 'better-sqlite3', database: ':memory:' }]];
// PostgreSQL when the run names one (CI's second engine): a temporary table, gone with the connection.
if (process.env.DATABASE_URL?.startsWith('postgres')) engines.push(['PostgreSQL', { type: 'postgres', url: process.env.DATABASE_URL, poolSize: 1 }]);

describe.each(engines)('isUniqueViolation on %s', (_engine, options) => {
  let db: DataSource;

  beforeAll(async () => {
    db = await new DataSource({ ...options, entities: [] }).initialize();
    await db.query('CREATE TEMPORARY TABLE doc (id TEXT PRIMARY KEY, custom_id TEXT UNIQUE, title TEXT NOT NULL)');
    await db.query(`INSERT INTO doc (id, custom_id, title) VALUES ('a', 'x', 't')`);
  });
  afterAll(() => db?.destroy());

  it('recognises a duplicate unique column and a duplicate primary key by the driver code', async () => {
    const duplicate = await failure(db, `INSERT INTO doc (id, custom_id, title) VALUES ('b', 'x', 't')`);
    expect(duplicate).toBeInstanceOf(QueryFailedError);
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect(isUniqueViolation(await failure(db, `INSERT INTO doc (id, custom_id, title) VALUES ('a', 'y', 't')`))).toBe(true);
  });

  it('is false for other constraint failures and other errors', async () => {
    expect(isUniqueViolation(await failure(db, `INSERT INTO doc (id, custom_id) VALUES ('c', 'z')`))).toBe(false);
    expect(isUniqueViolation(await failure(db, 'SELECT nothing FROM nowhere'))).toBe(false);
  });

  it('reads codes, never messages: a message that says "unique" or "duplicate" is not enough', () => {
    expect(isUniqueViolation(new Error('UNIQUE constraint failed: doc.custom_id'))).toBe(false);
    expect(isUniqueViolation(new Error('duplicate key value violates unique constraint'))).toBe(false);
    expect(isUniqueViolation(undefined)).toBe(false);
    expect(isUniqueViolation('23505')).toBe(false);
  });
});
