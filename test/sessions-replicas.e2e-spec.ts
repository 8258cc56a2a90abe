import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { freshProcessEnv, KeelProcess, spawnKeel, tempDir, testDatabaseServer } from './support/keel';

// Replicas share one database only on PostgreSQL; SQLite is one process by design.
const describeOnPostgres = testDatabaseServer ? describe : describe.skip;

/**
 * Replicas (real processes) on one fresh database, each with its own data dir, started by the suite when
 * it wants them and stopped after it; `directory` is the project their clients work in.
 */
function replicasOnOneDatabase(prefix: string) {
  const replicas: KeelProcess[] = [];
  let fresh: Awaited<ReturnType<typeof freshProcessEnv>> | undefined;
  let directory = '';

  beforeAll(async () => {
    directory = tempDir(prefix);
    fresh = await freshProcessEnv({ KEEL_LOG_LEVEL: 'error' });
  });

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await fresh?.cleanup();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  return {
    directory: () => directory,
    async start(name: string): Promise<KeelProcess> {
      const replica = await spawnKeel({ ...fresh!.env, KEEL_DATA_DIR: join(fresh!.env.KEEL_DATA_DIR, name) });
      replicas.push(replica);
      return replica;
    },
  };
}

/**
 * A replica that hears another on the event relay keeps no session list: concurrent `GET /session` share
 * one read, which always starts after each of them arrived. So a session another replica acknowledged is
 * in the very next list, before any relayed event could have reached this replica.
 */
describeOnPostgres('session lists across two replicas (real processes on one PostgreSQL database)', () => {
  const suite = replicasOnOneDatabase('keel-session-replicas-');
  let replicas: KeelProcess[] = [];
  let directory: string;

  beforeAll(async () => {
    replicas = await Promise.all(['a', 'b'].map((name) => suite.start(name)));
    directory = suite.directory();
  });

  it("lists at once a session the other replica created, updated or deleted, while the lister is under load", async () => {
    const [a, b] = replicas.map((r) => createOpencodeClient({ baseUrl: r.url, directory }));
    const ids = async () => ((await b.session.list()).data ?? []).map((s) => s.id);
    let loading = true;
    // Lists in flight on the other replica all the time, so each checked list joins a shared read.
    const load = Promise.all(
      Array.from({ length: 8 }, async () => {
        while (loading) await b.session.list();
      }),
    );
    try {
      for (let round = 0; round < 20; round++) {
        const { data: created } = await a.session.create({ title: `from a ${round}` });
        expect(await ids()).toContain(created!.id);
        await a.session.update({ sessionID: created!.id, title: `renamed ${round}` });
        const listed = (await b.session.list()).data!.find((s) => s.id === created!.id);
        expect(listed?.title).toBe(`renamed ${round}`);
        await a.session.delete({ sessionID: created!.id });
        expect(await ids()).not.toContain(created!.id);
      }
      // And the other way round, for creates made concurrently (one multi-row INSERT on the creating replica).
      const made = await Promise.all(Array.from({ length: 10 }, (_, i) => b.session.create({ title: `from b ${i}` })));
      const listedOnA = ((await a.session.list()).data ?? []).map((s) => s.id);
      for (const { data } of made) expect(listedOnA).toContain(data!.id);
    } finally {
      loading = false;
      await load;
    }
  });
});

/**
 * A replica alone on the relay keeps its lists, as on SQLite. A replica that starts later is heard
 * before it serves a request, so what it writes is in the very next list of the first one.
 */
describeOnPostgres('a session list kept while alone, and a replica that joins', () => {
  const suite = replicasOnOneDatabase('keel-session-alone-');

  it('lists at once what a replica that joined created, updated or deleted', async () => {
    const directory = suite.directory();
    const a = createOpencodeClient({ baseUrl: (await suite.start('a')).url, directory });
    const ids = async () => ((await a.session.list()).data ?? []).map((s) => s.id);
    const { data: own } = await a.session.create({ title: 'from a' });
    // Alone after two seconds without hearing another replica; its list is kept from then on.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await ids()).toEqual([own!.id]);
    expect(await ids()).toEqual([own!.id]);

    const b = createOpencodeClient({ baseUrl: (await suite.start('b')).url, directory });
    const { data: created } = await b.session.create({ title: 'from b' });
    expect(await ids()).toEqual([created!.id, own!.id]);
    await b.session.update({ sessionID: own!.id, title: 'renamed on b' });
    expect((await a.session.list()).data!.find((s) => s.id === own!.id)?.title).toBe('renamed on b');
    await b.session.delete({ sessionID: created!.id });
    expect(await ids()).toEqual([own!.id]);
  });
});
