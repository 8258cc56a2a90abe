import Supermemory from 'supermemory';
import { startKeel, TestKeel } from './support/keel';
import { memoryClient, startEmbeddingServer, waitForDocument } from './support/memory-fixtures';

/**
 * Hybrid search with an embedding provider: a loopback OpenAI-compatible server whose vectors put a few
 * synonyms together (car/automobile → vehicle, crimson/scarlet → red), so "semantic" hits are known.
 */
describe('memory search: hybrid ranking and the vector index (supermemory SDK 4.25.4)', () => {
  let embeddings: Awaited<ReturnType<typeof startEmbeddingServer>>;
  let keel: TestKeel;
  let client: Supermemory;

  const withEmbeddings = async <T>(start: () => Promise<T>): Promise<T> => {
    process.env.KEEL_EMBEDDING_URL = embeddings.url;
    try {
      return await start();
    } finally {
      delete process.env.KEEL_EMBEDDING_URL;
    }
  };

  const add = async (content: string, containerTag: string) => {
    const { id } = await client.add({ content, containerTag });
    expect(await waitForDocument(client, id, { dreaming: false })).toMatchObject({ status: 'done' });
    return id;
  };

  const documentIds = async (c: Supermemory, q: string, tag: string) =>
    (await c.search.documents({ q, containerTags: [tag], chunkThreshold: 0.2 })).results.map((r) => r.documentId);

  beforeAll(async () => {
    embeddings = await startEmbeddingServer();
    keel = await withEmbeddings(() => startKeel({ env: { KEEL_API_KEYS: 'test-key' } }));
    client = memoryClient(keel.url);
  });

  afterAll(async () => {
    await keel.close();
    await embeddings.close();
  });

  it('ranks a chunk with a query word and a related meaning above one found by meaning alone, and leaves unrelated text out', async () => {
    const museum = await add('The automobile museum opens on Sunday.', 'cars');
    const crimson = await add('My car is crimson and fast.', 'cars');
    await add('Rye bread needs a long slow proof.', 'cars');

    const found = await client.search.documents({ q: 'scarlet automobile', containerTags: ['cars'], chunkThreshold: 0.2 });
    expect(found.results.map((r) => r.documentId)).toEqual([museum, crimson]);
    const [first, second] = found.results;
    expect(first.score).toBeGreaterThan(second.score);
    // The crimson car shares no word with the query: its score is the vector half alone.
    expect(second.score).toBeLessThanOrEqual(0.5);

    const hybrid = await client.search.memories({ q: 'scarlet automobile', containerTag: 'cars', searchMode: 'documents', threshold: 0.2 });
    expect(hybrid.results.map((r) => r.chunk)).toEqual(['The automobile museum opens on Sunday.', 'My car is crimson and fast.']);
  });

  it('finds by meaning only inside the asked container tags', async () => {
    const garage = await add('My car is crimson and fast.', 'garage');
    const shed = await add('My car is crimson and fast.', 'shed');
    expect(await documentIds(client, 'automobile', 'garage')).toEqual([garage]);
    expect(await documentIds(client, 'automobile', 'shed')).toEqual([shed]);
    expect(await documentIds(client, 'automobile', 'attic')).toEqual([]);
  });

  it('follows a document moved to other container tags, by words and by meaning', async () => {
    const moved = await add('My car is crimson and fast.', 'alpha');
    await client.documents.update(moved, { containerTags: ['beta'] });
    expect(await documentIds(client, 'crimson', 'beta')).toEqual([moved]);
    expect(await documentIds(client, 'automobile', 'beta')).toEqual([moved]);
    expect(await documentIds(client, 'crimson', 'alpha')).toEqual([]);
    expect(await documentIds(client, 'automobile', 'alpha')).toEqual([]);
  });

  it('forgets the vectors of replaced content and deleted documents', async () => {
    const replaced = await add('An automobile rusts.', 'barn');
    const deleted = await add('A fast car.', 'yard');
    expect(await documentIds(client, 'vehicle', 'barn')).toEqual([replaced]);
    expect(await documentIds(client, 'vehicle', 'yard')).toEqual([deleted]);

    await client.documents.update(replaced, { content: 'Rye bread needs a long slow proof.' });
    expect(await waitForDocument(client, replaced, { dreaming: false })).toMatchObject({ status: 'done' });
    expect(await documentIds(client, 'vehicle', 'barn')).toEqual([]);
    expect(await documentIds(client, 'rye', 'barn')).toEqual([replaced]);

    await client.documents.delete(deleted);
    expect(await documentIds(client, 'vehicle', 'yard')).toEqual([]);
  });

  it('loads the stored vectors when a server starts on existing data', async () => {
    const parked = await add('My car is crimson and fast.', 'parking');
    const again = await withEmbeddings(() => startKeel({ reuse: keel }));
    try {
      expect(await documentIds(memoryClient(again.url), 'automobile', 'parking')).toEqual([parked]);
    } finally {
      await again.keel.app.close();
    }
  });
});
