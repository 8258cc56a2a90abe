import { freshProcessEnv, KeelProcess, spawnKeel, testDatabaseServer } from './support/keel';

// Replicas started at one moment on an empty PostgreSQL database must serialise their migrations:
// every one comes up on the first try and none logs an error.
(testDatabaseServer ? describe : describe.skip)('replicas starting together on PostgreSQL', () => {
  const replicas: KeelProcess[] = [];
  let cleanup: () => Promise<void> = () => Promise.resolve();

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await cleanup();
  });

  it('all migrate and start on an empty database with no error logged', async () => {
    const fresh = await freshProcessEnv();
    cleanup = fresh.cleanup;
    const started = await Promise.allSettled(
      [1, 2, 3, 4].map((n) => spawnKeel({ ...fresh.env, KEEL_DATA_DIR: `${fresh.env.KEEL_DATA_DIR}/${n}` })),
    );
    for (const result of started) if (result.status === 'fulfilled') replicas.push(result.value);
    expect(started.filter((r) => r.status === 'rejected').map((r) => String(r.reason))).toEqual([]);
    for (const replica of replicas) {
      const errors = replica
        .output()
        .split('\n')
        .filter((line) => /"level":(50|60)/.test(line) || /\bERROR\b/.test(line));
      expect(errors).toEqual([]);
      const health = await fetch(`${replica.url}/global/health`);
      expect(health.status).toBe(200);
    }
  });
});
