import { freshProcessEnv, KeelProcess, spawnKeel, testDatabaseServer } from './support/keel';
import { memoryClient } from './support/memory-fixtures';

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
      let unfinished: number;
      do unfinished = (await client.documents.listProcessing()).totalCount;
      while (unfinished === results.length);
      await doomed.stop('SIGKILL');

      const deadline = Date.now() + 120_000;
      while ((await client.documents.listProcessing()).totalCount > 0) {
        if (Date.now() > deadline) throw new Error('the dead replica’s documents were never taken over');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(survivor.output()).toContain('took over the claims of a pipeline worker that stopped');
      for (const { id } of results.filter((_, i) => i % 10 === 0)) {
        expect((await client.documents.get(id)).status).toBe('done');
        const { chunks } = await client.get<{ chunks: { position: number }[] }>(`/v3/documents/${id}/chunks`);
        expect(chunks.map((c) => c.position)).toEqual(chunks.map((_, i) => i));
      }
    });
  },
);
