import { DataSource } from 'typeorm';
import { PlannerStatistics } from './planner-statistics';

const postgres = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : undefined;

// PostgreSQL only (CI's second engine): SQLite has no planner statistics to refresh.
(postgres ? describe : describe.skip)('PlannerStatistics on PostgreSQL', () => {
  const schema = `keel_planner_${process.pid}`;
  let db: DataSource;
  let statistics: PlannerStatistics;

  /** What the planner believes of a table (-1 before any ANALYZE). */
  const reltuples = async (table: string) => Number((await db.query<{ n: number }[]>(`SELECT reltuples AS n FROM pg_class WHERE oid = $1::regclass`, [`${schema}.${table}`]))[0].n);

  beforeAll(async () => {
    // One connection, so the search path holds for every statement, the transactions' included.
    db = await new DataSource({ type: 'postgres', url: postgres, poolSize: 1, entities: [] }).initialize();
    await db.query(`CREATE SCHEMA ${schema}`);
    await db.query(`SET search_path TO ${schema}`);
    await db.query('CREATE TABLE grown (id integer PRIMARY KEY, status text NOT NULL)');
    await db.query('CREATE TABLE quiet (id integer PRIMARY KEY)');
    statistics = new PlannerStatistics(db);
  });
  afterAll(async () => {
    await db?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.destroy();
  });

  it('analyzes the tables changed by more than 50 rows and 20 % since their statistics, and only those', async () => {
    await db.query(`INSERT INTO grown SELECT i, CASE WHEN i % 100 = 0 THEN 'queued' ELSE 'done' END FROM generate_series(1, 5000) i`);
    await db.query('INSERT INTO quiet SELECT generate_series(1, 10)');
    // The counters reach the shared statistics after the inserting transaction ends.
    await db.query('SELECT pg_stat_force_next_flush()');
    await db.query('SELECT 1');
    expect(await reltuples('grown')).toBe(-1);

    expect(await statistics.refresh()).toEqual([`${schema}.grown`]);
    expect(await reltuples('grown')).toBe(5000);
    expect(await reltuples('quiet')).toBe(-1);

    // Fresh statistics are left alone until the table changes again by 20 %.
    await db.query(`UPDATE grown SET status = 'done' WHERE id <= 500`);
    await db.query('SELECT pg_stat_force_next_flush()');
    await db.query('SELECT 1');
    expect(await statistics.refresh()).toEqual([]);
  });
});
