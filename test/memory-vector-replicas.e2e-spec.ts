import Supermemory from 'supermemory';
import { startKeel, testDatabaseServer, TestKeel } from './support/keel';
import { memoryClient, startEmbeddingServer, waitForDocument } from './support/memory-fixtures';

/**
 * Vector search on its maintained engines: sqlite-vec in the SQLite file, usearch in each replica on
 * PostgreSQL kept coherent through the event relay. Queries share no word with the documents (the
 * loopback embedding server maps car/automobile to one meaning), so every hit here is a vector hit.
 */
describe('memory vectors: what one replica writes, every replica finds (supermemory SDK 4.25.4)', () => {
  let embeddings: Awaited<ReturnType<typeof startEmbeddingServer>>;
  let first: TestKeel;
  let second: TestKeel | undefined;
  let a: Supermemory;
  let b: Supermemory;

  const withEmbeddings = async <T>(start: () => Promise<T>): Promise<T> => {
    process.env.KEEL_EMBEDDING_URL = embeddings.url;
    try {
      return await start();
    } finally {
      delete process.env.KEEL_EMBEDDING_URL;
    }
  };

  /** Document ids of `/v4/search` chunk hits. */
  const found = async (client: Supermemory, q: string, containerTag: string, threshold = 0.2) => {
    const { results } = await client.search.memories({ q, containerTag, searchMode: 'documents', threshold });
    return [...new Set(results.map((r) => (r as unknown as { documents: { id: string }[] }).documents[0].id))];
  };

  /** Polls until `client` answers `expected` (the relay's delay is well under a second; the wait is generous). */
  const eventually = async (client: Supermemory, q: string, tag: string, expected: string[], threshold?: number) => {
    const deadline = Date.now() + 10_000;
    let last: string[] = [];
    while (Date.now() < deadline) {
      last = await found(client, q, tag, threshold);
      if (JSON.stringify(last) === JSON.stringify(expected)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(last).toEqual(expected);
  };

  beforeAll(async () => {
    embeddings = await startEmbeddingServer();
    first = await withEmbeddings(() => startKeel({ env: { KEEL_API_KEYS: 'test-key' } }));
    // SQLite is one process by design: both clients talk to it. On PostgreSQL, a second replica.
    if (testDatabaseServer) second = await withEmbeddings(() => startKeel({ reuse: first }));
    a = memoryClient(first.url);
    b = memoryClient((second ?? first).url);
  });

  afterAll(async () => {
    await second?.keel.app.close();
    await first?.close();
    await embeddings?.close();
  });

  it('finds a document added through A by meaning on B, and on neither once deleted through B', async () => {
    const { id } = await a.add({ content: 'My car is crimson and fast.', containerTag: 'lot' });
    expect(await waitForDocument(a, id, { dreaming: false })).toMatchObject({ status: 'done' });
    await eventually(b, 'automobile', 'lot', [id]);
    await eventually(a, 'automobile', 'lot', [id]);

    await b.documents.delete(id);
    await eventually(b, 'automobile', 'lot', []);
    await eventually(a, 'automobile', 'lot', []);
  });

  it('replaces the vectors of a document re-ingested under its customId everywhere', async () => {
    const { id } = await a.add({ content: 'An automobile rusts in the rain.', containerTag: 'barn', customId: 'barn-note' });
    expect(await waitForDocument(a, id, { dreaming: false })).toMatchObject({ status: 'done' });
    await eventually(b, 'vehicle', 'barn', [id]);
    expect(await found(b, 'scarlet', 'barn', 0.1)).toEqual([]);

    // Adding under the same customId appends to the document, which is chunked and embedded again.
    const again = await b.add({ content: 'Crimson paint peels.', containerTag: 'barn', customId: 'barn-note' });
    expect(again.id).toBe(id);
    for (const client of [a, b]) await eventually(client, 'scarlet', 'barn', [id], 0.1);
  });

  it('keeps a search inside its container tags on every replica', async () => {
    const { id } = await b.add({ content: 'A fast car.', containerTag: 'garage' });
    expect(await waitForDocument(b, id, { dreaming: false })).toMatchObject({ status: 'done' });
    for (const client of [a, b]) {
      await eventually(client, 'automobile', 'garage', [id]);
      expect(await found(client, 'automobile', 'attic')).toEqual([]);
    }
  });
});
