import { freshProcessEnv, KeelProcess, spawnKeel, testDatabaseServer } from './support/keel';
import { memoryClient, startWebServer, waitUntilProcessed } from './support/memory-fixtures';

/** Needs a built server: dist/ (npm test builds it) or a private build passed as KEEL_DIST. */
describe('memory: a crash mid-pipeline, then a restart that finishes every document', () => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  let server: KeelProcess | undefined;

  beforeAll(async () => {
    ({ env, cleanup } = await freshProcessEnv({ KEEL_API_KEYS: 'test-key', KEEL_INGEST_LEASE_MS: '1500', KEEL_INGEST_CONCURRENCY: '1', KEEL_LOG_LEVEL: 'error' }));
  });

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
    await cleanup();
  });

  it('resumes unfinished documents after kill -9 without duplicate chunks', async () => {
    server = await spawnKeel(env);
    let client = memoryClient(server.url);
    const sentence = (i: number, j: number) => `Document ${i} sentence ${j} mentions the marker word m${i}x and some filler text to make chunks.`;
    const documents = Array.from({ length: 200 }, (_, i) => ({ content: Array.from({ length: 60 }, (__, j) => sentence(i, j)).join(' '), dreaming: 'instant' }));
    const { results } = await client.documents.batchAdd({ documents, containerTag: 'crash' });
    expect(results.every((r) => r.status === 'queued')).toBe(true);
    // Kill as soon as the pipeline is under way but not finished.
    let unfinished: number;
    do unfinished = (await client.documents.listProcessing()).totalCount;
    while (unfinished === results.length);
    await server.stop('SIGKILL');
    expect(unfinished).toBeGreaterThan(0);

    server = await spawnKeel(env);
    client = memoryClient(server.url);
    await waitUntilProcessed(client, 45_000, 'documents still processing after restart');
    for (const { id } of results) {
      const doc = await client.documents.get(id);
      expect(doc.status).toBe('done');
      const { chunks } = await client.get<{ chunks: { position: number }[] }>(`/v3/documents/${id}/chunks`);
      expect(chunks.map((c) => c.position)).toEqual(chunks.map((_, i) => i));
    }
    for (const i of [0, 99, 199]) {
      const found = await client.search.documents({ q: `m${i}x`, containerTags: ['crash'], limit: 10 });
      expect(found.results).toHaveLength(1);
      const positions = found.results[0].chunks.map((c) => c.content);
      expect(new Set(positions).size).toBe(positions.length);
    }
  });

  // Two replicas on one PostgreSQL database: FOR UPDATE SKIP LOCKED hands every document to exactly one of them.
  (testDatabaseServer ? it : it.skip)('two replicas never process the same document twice', async () => {
    const hooks = await startWebServer();
    const shared = await freshProcessEnv({ KEEL_API_KEYS: 'test-key', KEEL_INGEST_CONCURRENCY: '2', KEEL_INGEST_WEBHOOKS: `${hooks.url}/hook`, KEEL_LOG_LEVEL: 'error' });
    const replicas = await Promise.all([spawnKeel(shared.env), spawnKeel(shared.env)]);
    try {
      const ids: string[] = [];
      for (const replica of replicas) {
        const documents = Array.from({ length: 150 }, (_, i) => `Replica test ${ids.length + i} says hello to the shared queue.`);
        const { results } = await memoryClient(replica.url).documents.batchAdd({ documents, containerTag: 'replicas' });
        ids.push(...results.map((r) => r.id));
      }
      const client = memoryClient(replicas[0].url);
      const deadline = Date.now() + 40_000;
      await waitUntilProcessed(client, 40_000, 'replicas did not finish');
      // Every delivery sent (the outbox empty on the shared database), then counted once per delivery id:
      // delivery is at-least-once, and receivers drop repeats by `x-keel-delivery`.
      const outboxDepth = async () => {
        const text = await (await fetch(`${replicas[0].url}/metrics`)).text();
        return Number(/^keel_webhook_outbox_depth (\S+)$/m.exec(text)?.[1]);
      };
      while ((await outboxDepth()) > 0) {
        if (Date.now() > deadline + 30_000) throw new Error('webhook deliveries never finished');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const extracting = new Map<string, Set<unknown>>();
      for (const hook of hooks.hooks) {
        const data = hook.data as { id: string; status: string };
        if (data.status === 'extracting') extracting.set(data.id, (extracting.get(data.id) ?? new Set()).add(hook.delivery));
      }
      expect(ids.filter((id) => extracting.get(id)?.size !== 1)).toEqual([]);
    } finally {
      await Promise.all(replicas.map((r) => r.stop('SIGTERM')));
      await shared.cleanup();
      await hooks.close();
    }
  });
});
