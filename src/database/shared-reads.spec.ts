import { SharedReads } from './shared-reads';

/** A read whose answer the test gives: the value it will return is the database's state when it starts. */
function database() {
  let state = 0;
  const started: { at: number; finish: () => void }[] = [];
  const reads = new SharedReads<string, number>(
    () =>
      new Promise((resolve) => {
        const at = state;
        started.push({ at, finish: () => resolve(at) });
      }),
  );
  return { reads, started, write: () => state++ };
}

describe('SharedReads', () => {
  it('answers the requests that arrive during a read with one next read, started after it', async () => {
    const db = database();
    const first = db.reads.get('p');
    db.write(); // committed after the first read started: the requests below were told of it
    const second = db.reads.get('p');
    const third = db.reads.get('p');
    expect(db.started).toHaveLength(1);
    db.started[0].finish();
    expect(await first).toBe(0);
    await Promise.resolve();
    expect(db.started).toHaveLength(2);
    db.started[1].finish();
    expect(await second).toBe(1);
    expect(await third).toBe(1);
  });

  it('reads each key on its own, and again once idle', async () => {
    const db = database();
    const a = db.reads.get('a');
    const b = db.reads.get('b');
    expect(db.started).toHaveLength(2);
    db.started.forEach((read) => read.finish());
    await Promise.all([a, b]);
    db.write();
    const again = db.reads.get('a');
    db.started[2].finish();
    expect(await again).toBe(1);
  });

  it('fails the requests of a failed read, and those waiting still get the next one', async () => {
    let calls = 0;
    const reads = new SharedReads<string, number>(() => (++calls === 1 ? Promise.reject(new Error('lost')) : Promise.resolve(calls)));
    const first = reads.get('p');
    const second = reads.get('p');
    await expect(first).rejects.toThrow('lost');
    await expect(second).resolves.toBe(2);
  });
});
