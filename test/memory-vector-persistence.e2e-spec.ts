import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Supermemory from 'supermemory';
import { VectorIndex, VectorIndexState } from '../src/memory/search/vector-index';
import { startKeel, testDatabaseServer, TestKeel } from './support/keel';
import { memoryClient, startEmbeddingServer, waitForDocument } from './support/memory-fixtures';

/**
 * The usearch index each replica saves beside its data and loads at start (on SQLite the HNSW index
 * above the exact scan; KEEL_VECTOR_EXACT_LIMIT=0 puts every vector there). A restarted server answers
 * from the saved file brought up to the database, never from a file that does not fit it.
 */
describe('memory vectors: the saved index survives a restart (supermemory SDK 4.25.4)', () => {
  let embeddings: Awaited<ReturnType<typeof startEmbeddingServer>>;
  let first: TestKeel;
  let server: TestKeel | undefined;
  let client: Supermemory;
  let stored: string;

  const start = async (env: Record<string, string> = {}) => {
    process.env.KEEL_EMBEDDING_URL = embeddings.url;
    try {
      const keel = first ? await startKeel({ reuse: first, env }) : await startKeel({ env: { KEEL_API_KEYS: 'test-key', KEEL_VECTOR_EXACT_LIMIT: '0', ...env } });
      client = memoryClient(keel.url);
      return keel;
    } finally {
      delete process.env.KEEL_EMBEDDING_URL;
    }
  };

  const stop = async () => {
    await server?.keel.app.close();
    server = undefined;
  };

  const restart = async (env?: Record<string, string>) => {
    await stop();
    server = await start(env);
  };

  /** The HNSW index's state once its start-up load has finished. */
  const loadedIndex = async (keel = server!): Promise<VectorIndexState> => {
    const index = keel.keel.app.get(VectorIndex);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const state = index.describe();
      if (state?.complete || Date.now() > deadline) return state!;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  /** Document ids of `/v4/search` chunk hits (asked once: no waiting for an index to catch up). */
  const found = async (q: string, containerTag: string) => {
    const { results } = await client.search.memories({ q, containerTag, searchMode: 'documents', threshold: 0.2 });
    return [...new Set(results.map((r) => (r as unknown as { documents: { id: string }[] }).documents[0].id))].sort();
  };

  const add = async (content: string, containerTag: string) => {
    const { id } = await client.add({ content, containerTag });
    expect(await waitForDocument(client, id, { dreaming: false })).toMatchObject({ status: 'done' });
    return id;
  };

  const saved = (ext: string) => `${server!.dataDir}/vectors/replica-0.${ext}`;

  beforeAll(async () => {
    embeddings = await startEmbeddingServer();
    first = await start();
    server = first;
    stored = await add('My car is crimson and fast.', 'lot');
    await add('Bread rises in a warm kitchen.', 'lot');
    // The first search on SQLite starts the HNSW index (the table is past KEEL_VECTOR_EXACT_LIMIT).
    expect(await found('automobile', 'lot')).toEqual([stored]);
    await loadedIndex();
  });

  afterAll(async () => {
    await stop();
    // first.close() drops the database and the data dir (its app was closed with the first restart).
    await first?.close().catch(() => undefined);
    await embeddings?.close();
  });

  it('saves at shutdown and answers from the saved index at once after a restart', async () => {
    const before = await found('automobile', 'lot');
    await restart();
    for (const ext of ['usearch', 'keys', 'json']) expect(existsSync(saved(ext))).toBe(true);
    expect(await found('automobile', 'lot')).toEqual(before);
    const state = await loadedIndex();
    expect(state).toMatchObject({ source: 'saved', added: 0, removed: 0, size: 2 });
    expect(JSON.parse(readFileSync(saved('json'), 'utf8'))).toMatchObject({ count: 2, format: 1 });
  });

  it('forgets a deleted document at once, and applies what changed after an older save', async () => {
    const older = join(server!.dataDir, 'older');
    for (const ext of ['usearch', 'keys', 'json']) copyFileSync(saved(ext), `${older}.${ext}`);
    const added = await add('An automobile waits in the rain.', 'lot');
    await client.documents.delete(stored);
    expect(await found('automobile', 'lot')).toEqual([added]);
    expect((await loadedIndex()).tombstones).toBeGreaterThan(0);

    // Put back the index saved before the add and the delete: the start brings it up to the database.
    await stop();
    for (const ext of ['usearch', 'keys', 'json']) copyFileSync(`${older}.${ext}`, `${first.dataDir}/vectors/replica-0.${ext}`);
    server = await start();
    expect(await found('automobile', 'lot')).toEqual([added]);
    expect(await loadedIndex()).toMatchObject({ source: 'saved', added: 1, removed: 1, size: 2 });
    stored = added;
  });

  it('rebuilds from the database, without crashing, when the saved file is corrupt', async () => {
    await stop();
    const path = `${first.dataDir}/vectors/replica-0.usearch`;
    const bytes = readFileSync(path);
    bytes.fill(7, 64, Math.min(bytes.length, 4096));
    writeFileSync(path, bytes);
    server = await start();
    expect(await found('automobile', 'lot')).toEqual([stored]);
    expect(await loadedIndex()).toMatchObject({ source: 'rebuilt', reason: 'index file checksum differs', size: 2 });
  });

  it('rebuilds when the file was saved for another embedding model or another layout', async () => {
    await restart({ KEEL_EMBEDDING_MODEL: 'another-model' });
    expect(await loadedIndex()).toMatchObject({ source: 'rebuilt', size: 2 });
    expect((await loadedIndex()).reason).toMatch(/saved for model text-embedding-3-small/);
    expect(await found('automobile', 'lot')).toEqual([stored]);

    await stop();
    const meta = `${first.dataDir}/vectors/replica-0.json`;
    writeFileSync(meta, readFileSync(meta, 'utf8').replace(/"layout":"[^"]+"/, '"layout":"cos-f32-m8"'));
    server = await start({ KEEL_EMBEDDING_MODEL: 'another-model' });
    expect(await loadedIndex()).toMatchObject({ source: 'rebuilt', size: 2 });
    expect(await found('automobile', 'lot')).toEqual([stored]);
  });

  (testDatabaseServer ? it : it.skip)('gives each running replica its own file, and a restarted one catches up with deletes made while it was down', async () => {
    await restart(); // back on the default model: the file is saved for it again
    const other = await start();
    try {
      expect((await loadedIndex(other)).file).toMatch(/replica-1$/);
    } finally {
      await other.keel.app.close();
    }
    // Another replica starts (on replica-1); this one goes down and the other deletes the document meanwhile.
    const deleter = await start();
    try {
      expect((await loadedIndex(deleter)).file).toMatch(/replica-1$/);
      await stop();
      await memoryClient(deleter.url).documents.delete(stored);
      server = await start();
      const state = await loadedIndex();
      expect(state.file).toMatch(/replica-0$/);
      expect(state).toMatchObject({ source: 'saved', removed: 1 });
      expect(await found('automobile', 'lot')).toEqual([]);
    } finally {
      await deleter.keel.app.close();
    }
  });
});
