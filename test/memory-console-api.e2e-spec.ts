import Supermemory from 'supermemory';
import { startKeel, TestKeel } from './support/keel';
import { expectMemoryAnswer } from './support/error-bodies';
import { memoryClient, waitForDocument } from './support/memory-fixtures';

type Body = Record<string, any>;

// What the memory console added to the memory API (README "Memory console"): list filters, a failed
// document's error in lists, the relation of memory versions, restore, and the webhook outbox.
describe('memory: API additions for the console', () => {
  let keel: TestKeel;
  let client: Supermemory;
  beforeAll(async () => {
    keel = await startKeel({ env: { KEEL_API_KEYS: 'test-key' } });
    client = memoryClient(keel.url);
  });
  afterAll(() => keel.close());

  const list = (body: Body) => client.post<Body>('/v3/documents/list', { body });

  it('filters the documents list by status, type and creation date, and names a bad filter field', async () => {
    const text = await client.add({ content: 'I live in Berlin and I like the river Spree.', containerTag: 'console_api' });
    await waitForDocument(client, text.id);
    const start = new Date(Date.now() - 60_000).toISOString();

    expect((await list({ statuses: ['done'], containerTags: ['console_api'] })).memories.map((d: Body) => d.id)).toEqual([text.id]);
    expect((await list({ statuses: ['failed'], containerTags: ['console_api'] })).pagination.totalItems).toBe(0);
    expect((await list({ types: ['text'], containerTags: ['console_api'] })).pagination.totalItems).toBe(1);
    expect((await list({ types: ['webpage'], containerTags: ['console_api'] })).pagination.totalItems).toBe(0);
    expect((await list({ createdAfter: start, containerTags: ['console_api'] })).pagination.totalItems).toBe(1);
    expect((await list({ createdBefore: start, containerTags: ['console_api'] })).pagination.totalItems).toBe(0);

    await expectMemoryAnswer(list({ statuses: ['finished'] }), 400, /statuses\.0/);
    await expectMemoryAnswer(list({ statuses: 'done' }), 400, /statuses/);
    await expectMemoryAnswer(list({ types: [''] }), 400, /types\.0/);
    await expectMemoryAnswer(list({ createdAfter: 'yesterday' }), 400, /createdAfter/);
  });

  it('lists a failed document with its error', async () => {
    const { id } = await client.post<Body>('/v3/documents', {
      body: { content: 'http://127.0.0.1:1/nothing-listens-here', containerTag: 'console_failed' },
    });
    const doc = await waitForDocument(client, id);
    expect(doc.status).toBe('failed');
    const [listed] = (await list({ containerTags: ['console_failed'] })).memories;
    expect(listed).toMatchObject({ id, status: 'failed', error: doc.error });
  });

  it('restores a forgotten memory, which search finds again', async () => {
    const created = await client.post<Body>('/v4/memories', { body: { containerTag: 'console_restore', memories: [{ content: 'Dana collects vintage typewriters' }] } });
    const id = created.memories[0].id;
    const search = async () => (await client.post<Body>('/v4/search', { body: { q: 'typewriters', containerTag: 'console_restore' } })).results.map((r: Body) => r.id);
    expect(await search()).toEqual([id]);

    await expectMemoryAnswer(client.post('/v4/memories/restore', { body: { containerTag: 'console_restore', id } }), 409);
    await client.delete('/v4/memories', { body: { containerTag: 'console_restore', id } });
    expect(await search()).toEqual([]);
    expect(await client.post('/v4/memories/restore', { body: { containerTag: 'console_restore', id } })).toEqual({ id, forgotten: false });
    expect(await search()).toEqual([id]);

    await expectMemoryAnswer(client.post('/v4/memories/restore', { body: { containerTag: 'console_restore', id: 'missing' } }), 404);
    await expectMemoryAnswer(client.post('/v4/memories/restore', { body: { id } }), 400, /containerTag/);
  });

  it('gives memory versions their relation', async () => {
    const created = await client.post<Body>('/v4/memories', { body: { containerTag: 'console_relation', memories: [{ content: 'Sam lives in Oslo' }] } });
    await client.patch('/v4/memories', { body: { containerTag: 'console_relation', id: created.memories[0].id, newContent: 'Sam lives in Bergen' } });
    const [entry] = (await client.post<Body>('/v4/memories/list', { body: { containerTags: ['console_relation'] } })).memoryEntries;
    expect(entry).toMatchObject({ memory: 'Sam lives in Bergen', relation: 'updates', history: [{ memory: 'Sam lives in Oslo', relation: null }] });
  });

  it('answers the webhook outbox (empty without receivers) and names a bad documentId', async () => {
    expect(await client.get('/v3/webhooks/deliveries')).toEqual({ receivers: [], maxAttempts: expect.any(Number), total: 0, deliveries: [] });
    const twice = await fetch(`${keel.url}/v3/webhooks/deliveries?documentId=a&documentId=b`, { headers: { 'x-api-key': 'test-key' } });
    expect(twice.status).toBe(400);
    expect(await twice.json()).toMatchObject({ error: expect.any(String), details: expect.stringMatching(/documentId/) });
    const anonymous = await fetch(`${keel.url}/v3/webhooks/deliveries`);
    expect(anonymous.status).toBe(401);
  });
});
