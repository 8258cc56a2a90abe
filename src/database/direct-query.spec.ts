import { DataSource, DataSourceOptions } from 'typeorm';
import { directQuery } from './direct-query';
import { isUniqueViolation } from './unique-violation';

const engines: [string, DataSourceOptions, string][] = [['SQLite (better-sqlite3, in memory)', { type: 'better-sqlite3', database: ':memory:' }, '?']];
// PostgreSQL when the run names one (CI's second engine): one pooled connection, so the temporary table is seen.
if (process.env.DATABASE_URL?.startsWith('postgres')) engines.push(['PostgreSQL', { type: 'postgres', url: process.env.DATABASE_URL, poolSize: 1 }, '$']);

describe.each(engines)('directQuery on %s', (_engine, options, mark) => {
  let db: DataSource;
  const p = (n: number) => (mark === '?' ? '?' : `$${n}`);

  beforeAll(async () => {
    db = await new DataSource({ ...options, entities: [] }).initialize();
    await db.query('CREATE TEMPORARY TABLE doc (id TEXT PRIMARY KEY, title TEXT NOT NULL)');
  });
  afterAll(() => db?.destroy());

  it('writes on the connection TypeORM reads, and reads rows back', async () => {
    const query = directQuery(db);
    await expect(query(`INSERT INTO doc (id, title) VALUES (${p(1)}, ${p(2)}), (${p(3)}, ${p(4)})`, ['a', 'A', 'b', 'B'])).resolves.toEqual([]);
    expect(await db.query('SELECT id, title FROM doc ORDER BY id')).toEqual([{ id: 'a', title: 'A' }, { id: 'b', title: 'B' }]);
    await expect(query(`SELECT title FROM doc WHERE id = ${p(1)}`, ['b'])).resolves.toEqual([{ title: 'B' }]);
    // The same text again (prepared once on SQLite) with other values.
    await expect(query(`SELECT title FROM doc WHERE id = ${p(1)}`, ['a'])).resolves.toEqual([{ title: 'A' }]);
  });

  it('rejects with the driver error, which isUniqueViolation reads', async () => {
    const query = directQuery(db);
    const failure = await query(`INSERT INTO doc (id, title) VALUES (${p(1)}, ${p(2)})`, ['a', 'again']).catch((error: unknown) => error);
    expect(isUniqueViolation(failure)).toBe(true);
    // Its message, not `toThrow`: a Jest worker's later test files get better-sqlite3's errors from the first file's realm.
    await expect(query('SELECT title FROM nowhere', [])).rejects.toHaveProperty('message', expect.stringContaining('nowhere'));
  });

  // SQLite's one connection: a statement sent while a transaction is open is part of it (PostgreSQL's pool gives it another connection).
  (mark === '?' ? it : it.skip)('joins the transaction open on the connection, as DataSource.query does', async () => {
    const query = directQuery(db);
    await db
      .transaction(async () => {
        await query('INSERT INTO doc (id, title) VALUES (?, ?)', ['c', 'C']);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await db.query(`SELECT id FROM doc WHERE id = 'c'`)).toEqual([]);
  });
});
