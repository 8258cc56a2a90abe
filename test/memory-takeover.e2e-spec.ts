import { Client } from 'pg';
import { freshProcessEnv, KeelProcess, spawnKeel, testDatabaseServer } from './support/keel';
import { memoryClient, waitUntilProcessed } from './support/memory-fixtures';

// Replicas on PostgreSQL: the claims of a replica killed mid-pipeline are taken over by a live one as
// soon as the dead one stops beating, long before the claim's lease (ten minutes here) runs out.
(testDatabaseServer ? describe : describe.skip)(
  'memory: a replica killed with -9 while it holds claims',
  () => {
    const replicas: KeelProcess[] = [];
    let cleanup: () => Promise<void> = () => Promise.resolve();

    afterAll(async () => {
      await Promise.all(
        replicas
          .filter((r) => r.child.exitCode === null && r.child.signalCode === null)
          .map((r) => r.stop('SIGKILL')),
      );
      await cleanup();
    });

    it('has its documents finished by the other replica, each exactly once', async () => {
      const fresh = await freshProcessEnv({
        KEEL_API_KEYS: 'test-key',
        KEEL_INGEST_LEASE_MS: '600000',
        KEEL_INGEST_CONCURRENCY: '2',
        KEEL_LOG_LEVEL: 'warn',
      });
      cleanup = fresh.cleanup;
      const doomed = await spawnKeel(fresh.env);
      replicas.push(doomed);
      const survivor = await spawnKeel(fresh.env);
      replicas.push(survivor);
      const sentence = (i: number, j: number) =>
        `Takeover document ${i} sentence ${j} names the marker t${i}x and filler words for chunks.`;
      const documents = Array.from({ length: 300 }, (_, i) =>
        Array.from({ length: 40 }, (__, j) => sentence(i, j)).join(' '),
      );
      const { results } = await memoryClient(doomed.url).documents.batchAdd({
        documents,
        containerTag: 'takeover',
      });
      const client = memoryClient(survivor.url);
      // Killed only while both replicas hold claims (two workers' ids on unfinished documents), with
      // plenty left for the doomed one to keep claiming: it dies holding some. A document takes a few
      // milliseconds, so the claims are counted again with the doomed replica frozen (SIGSTOP), after
      // its statements already sent have settled: what it holds then, it holds when it dies.
      const database = new Client({ connectionString: fresh.env.DATABASE_URL });
      await database.connect();
      const bothHoldClaims = async () => {
        const { rows } = await database.query<{ workers: string; unfinished: string }>(
          `SELECT count(DISTINCT claimed_by) FILTER (WHERE claimed_by IS NOT NULL) AS workers, count(*) AS unfinished FROM memory_document WHERE status NOT IN ('done', 'failed')`,
        );
        if (Number(rows[0].unfinished) < results.length / 2) throw new Error('the replicas never held claims at the same time');
        return Number(rows[0].workers) >= 2;
      };
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      try {
        for (;;) {
          if (await bothHoldClaims()) {
            doomed.child.kill('SIGSTOP');
            await sleep(100);
            if (await bothHoldClaims()) break;
            doomed.child.kill('SIGCONT');
          }
          await sleep(10);
        }
      } finally {
        await database.end();
      }
      await doomed.stop('SIGKILL');

      await waitUntilProcessed(client, 120_000, 'the dead replica’s documents were never taken over', 200);
      expect(survivor.output()).toContain('took over the claims of a pipeline worker that stopped');
      // A document the survivor failed is logged with its stack: shown here rather than only its status.
      expect(survivor.output().split('\n').filter((line) => line.includes('document failed'))).toEqual([]);
      for (const { id } of results.filter((_, i) => i % 10 === 0)) {
        // The document's own words when it did not finish (a failure names its cause).
        const document = (await client.documents.get(id)) as { status: string; error?: string };
        expect({ id, status: document.status, error: document.error ?? null }).toEqual({ id, status: 'done', error: null });
        const { chunks } = await client.get<{ chunks: { position: number }[] }>(`/v3/documents/${id}/chunks`);
        expect(chunks.map((c) => c.position)).toEqual(chunks.map((_, i) => i));
      }
    });
  },
);
