import { Client } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';
import { directQuery } from './direct-query';
import { RetryingClient } from './retrying-client';
import { isUniqueViolation } from './unique-violation';

const engines: [string, DataSourceOptions, string][] = [['SQLite (better-sqlite3, in memory)', { type: 'better-sqlite3', database: ':memory:' }, '?']];
// PostgreSQL when the run names one (CI's second engine): the server's own client, one pooled connection, so the
// temporary table is seen.
const postgres = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : undefined;
if (postgres) engines.push(['PostgreSQL', { type: 'postgres', url: postgres, poolSize: 1, extra: { Client: RetryingClient } }, '$']);

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

  (mark === '$' ? it : it.skip)('prepares a text once on a connection, and sends a read again when its backend is terminated', async () => {
    const query = directQuery(db);
    const text = 'SELECT title FROM doc WHERE id = $1';
    await expect(query(text, ['a'])).resolves.toEqual([{ title: 'A' }]);
    await expect(query(text, ['b'])).resolves.toEqual([{ title: 'B' }]);
    expect(await db.query('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1', [text])).toEqual([{ n: 1 }]);

    const [{ pid }] = (await query('SELECT pg_backend_pid() AS pid', [])) as { pid: number }[];
    const slow = query('SELECT pg_sleep(0.5), $1::int AS n', [7]);
    const admin = new Client({ connectionString: postgres });
    await admin.connect();
    await new Promise((resolve) => setTimeout(resolve, 150));
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await admin.end();
    // The read was lost with its backend (57P01) and answered on a fresh connection, where it was prepared again.
    await expect(slow).resolves.toEqual([{ pg_sleep: '', n: 7 }]);
  });
});
