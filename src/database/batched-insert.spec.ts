import { BatchedInsert } from './batched-insert';

describe('BatchedInsert', () => {
  function table(fail?: (sql: string, parameters: unknown[]) => boolean) {
    const statements: { sql: string; parameters: unknown[] }[] = [];
    const inserter = new BatchedInsert(
      async (sql, parameters) => {
        statements.push({ sql, parameters });
        await new Promise((resolve) => setImmediate(resolve));
        if (fail?.(sql, parameters)) throw new Error('refused');
      },
      'session',
      ['id', 'title'],
      'postgres',
    );
    return { inserter, statements };
  }

  it('sends the first row at once and the rows that arrive meanwhile as one statement', async () => {
    const { inserter, statements } = table();
    await Promise.all([inserter.insert(['a', 'A']), inserter.insert(['b', 'B']), inserter.insert(['c', 'C'])]);
    expect(statements.map((s) => s.sql)).toEqual([
      'INSERT INTO "session" ("id", "title") VALUES ($1, $2)',
      'INSERT INTO "session" ("id", "title") VALUES ($1, $2), ($3, $4)',
    ]);
    expect(statements[1].parameters).toEqual(['b', 'B', 'c', 'C']);
  });

  it('gives each caller its own row outcome when a statement of several fails', async () => {
    const { inserter, statements } = table((_, parameters) => parameters.includes('bad'));
    const results = await Promise.allSettled([
      inserter.insert(['a', 'A']),
      inserter.insert(['bad', 'B']),
      inserter.insert(['c', 'C']),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(statements).toHaveLength(4);
  });

  it('runs one statement at a time, the rows that wait meanwhile together in the next', async () => {
    const statements: number[] = [];
    let running = 0;
    let most = 0;
    const inserter = new BatchedInsert(
      async (_, parameters) => {
        statements.push(parameters.length);
        most = Math.max(most, ++running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
      },
      't',
      ['x'],
      'postgres',
    );
    await Promise.all([1, 2, 3, 4, 5].map((n) => inserter.insert([n])));
    expect(most).toBe(1);
    expect(statements).toEqual([1, 4]);
  });

  it('on SQLite (a synchronous driver) sends the rows of one event-loop turn together, with ? placeholders, within maxRows', async () => {
    const statements: string[] = [];
    const inserter = new BatchedInsert((sql) => Promise.resolve(void statements.push(sql)), 't', ['x'], 'sqlite', 2);
    const first = Promise.all([1, 2, 3].map((n) => inserter.insert([n])));
    expect(statements).toEqual([]);
    await first;
    expect(statements).toEqual(['INSERT INTO "t" ("x") VALUES (?), (?)', 'INSERT INTO "t" ("x") VALUES (?)']);
    await inserter.insert([4]);
    expect(statements.at(-1)).toBe('INSERT INTO "t" ("x") VALUES (?)');
  });
});
