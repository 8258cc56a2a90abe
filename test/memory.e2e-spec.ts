import Supermemory, { toFile } from 'supermemory';
import { startKeel, TestKeel } from './support/keel';
import { expectMemoryAnswer } from './support/error-bodies';
import { makeDocx, makePdf, memoryClient, PolledDocument, startEmbeddingServer, startWebServer, waitForDocument, waitUntilProcessed, WebServer } from './support/memory-fixtures';

type Body = Record<string, unknown>;

describe('memory: ingestion, pipeline, search and profile (supermemory SDK 4.25.4)', () => {
  let keel: TestKeel;
  let client: Supermemory;
  let web: WebServer;

  beforeAll(async () => {
    web = await startWebServer();
    process.env.KEEL_DREAM_DELAY_MS = '100';
    process.env.KEEL_INGEST_WEBHOOKS = `${web.url}/hook`;
    process.env.KEEL_INGEST_WEBHOOK_SECRET = 'hook-secret';
    keel = await startKeel({ env: { KEEL_API_KEYS: 'test-key,other-key', KEEL_ALLOW_PRIVATE_FETCH: 'true' } });
    client = memoryClient(keel.url);
  });

  afterAll(async () => {
    delete process.env.KEEL_DREAM_DELAY_MS;
    delete process.env.KEEL_INGEST_WEBHOOKS;
    delete process.env.KEEL_INGEST_WEBHOOK_SECRET;
    await keel.close();
    await web.close();
  });

  it('refuses requests without a valid API key, with {error, details}', async () => {
    await expectMemoryAnswer(memoryClient(keel.url, 'wrong').documents.list({}), 401);
    const noKey = await fetch(`${keel.url}/v3/documents/list`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toEqual({ error: 'Unauthorized', details: expect.any(String) });
    const viaHeader = await fetch(`${keel.url}/v3/documents/list`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'x-api-key': 'other-key' } });
    expect(viaHeader.status).toBe(200);
  });

  it('adds text, is readable at once, walks the pipeline to done, and is found by both searches', async () => {
    const added = await client.add({ content: 'The lighthouse keeper Marta lives on Skerry Island. She repairs the foghorn every autumn.', containerTag: 'user_a', metadata: { source: 'note', year: 2024, tags: ['sea'] }, dreaming: 'instant' } as never);
    expect(added).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9]{22}$/), status: 'queued' });
    const early = (await client.documents.get(added.id)) as unknown as PolledDocument;
    expect(early.id).toBe(added.id);
    const doc = await waitForDocument(client, added.id);
    expect(doc).toMatchObject({ status: 'done', dreamingStatus: 'done', type: 'text', taskType: 'memory', customId: null, metadata: { source: 'note', year: 2024, tags: ['sea'] }, containerTags: ['user_a'] });
    expect(typeof doc.title).toBe('string');
    expect(typeof doc.summary).toBe('string');
    expect(typeof doc.createdAt).toBe('string');
    expect((doc.memories as Body[]).map((m) => m.memory)).toEqual(expect.arrayContaining(['The lighthouse keeper Marta lives on Skerry Island']));

    await web.hookArrived((h) => (h.data as Body).id === added.id && (h.data as Body).status === 'done' && (h.data as Body).dreamingStatus === 'done');
    const delivered = web.hooks.filter((h) => (h.data as Body).id === added.id);
    expect(delivered.map((h) => (h.data as Body).status)).toEqual(expect.arrayContaining(['queued', 'extracting', 'chunking', 'embedding', 'indexing', 'done']));
    expect(delivered.every((h) => h.type === 'memory.document.status' && /^sha256=[0-9a-f]{64}$/.test(String(h.signature)))).toBe(true);
    expect(delivered.some((h) => (h.data as Body).dreamingStatus === 'done')).toBe(true);

    const chunks = await client.get<{ chunks: Body[]; total: number; documentId: string }>(`/v3/documents/${added.id}/chunks`);
    expect(chunks).toMatchObject({ documentId: added.id, total: 1 });
    expect(chunks.chunks[0]).toMatchObject({ position: 0, type: 'text', content: expect.stringContaining('foghorn') });

    const v3 = await client.search.documents({ q: 'foghorn repairs', containerTags: ['user_a'], limit: 3 });
    expect(v3.results[0]).toMatchObject({ documentId: added.id, chunks: [expect.objectContaining({ isRelevant: true, content: expect.stringContaining('foghorn') })] });
    expect(typeof v3.timing).toBe('number');
    const other = await client.search.documents({ q: 'foghorn', containerTags: ['user_b'] });
    expect(other.results).toEqual([]);

    const memories = await client.search.memories({ q: 'where does Marta live?', containerTag: 'user_a' });
    expect(memories.results[0]).toMatchObject({ memory: expect.stringContaining('Skerry Island'), similarity: expect.any(Number), version: 1 });
    const hybrid = await client.search.memories({ q: 'foghorn autumn', containerTag: 'user_a', searchMode: 'hybrid', threshold: 0 });
    expect(hybrid.results.some((r) => typeof r.chunk === 'string')).toBe(true);
    const filtered = await client.search.documents({ q: 'foghorn', filters: { AND: [{ key: 'year', value: '2020', filterType: 'numeric', numericOperator: '>' }, { key: 'tags', value: 'SEA', filterType: 'array_contains', ignoreCase: true }] } });
    expect(filtered.results.map((r) => r.documentId)).toContain(added.id);
    const excluded = await client.search.documents({ q: 'foghorn', filters: { OR: [{ key: 'source', value: 'note', negate: true }] } });
    expect(excluded.results.map((r) => r.documentId)).not.toContain(added.id);
  });

  it('finds a small container’s document by words that a larger container wrote many times since', async () => {
    const small = await client.add({ content: 'The tidewatcher keeps the breakwater ledger.', containerTag: 'tide_small' });
    await waitForDocument(client, small.id, { dreaming: false });
    // More newer matches of the same words than a search without tags ranks (120 a term), in another container:
    // on SQLite a tag is checked after ranking, so the tagged search must rank a wider window.
    const documents = Array.from({ length: 150 }, (_, i) => `Tidewatcher entry ${i}: the breakwater held tonight.`);
    const big = await client.documents.batchAdd({ containerTag: 'tide_big', documents });
    expect(big.success).toBe(150);
    await waitUntilProcessed(client, 120_000, 'the larger container is still being processed');
    for (const q of ['tidewatcher', 'tidewatcher breakwater']) {
      const found = await client.search.documents({ q, containerTags: ['tide_small'] });
      expect(found.results.map((r) => r.documentId)).toEqual([small.id]);
      const v4 = await client.search.memories({ q, containerTag: 'tide_small', searchMode: 'documents', threshold: 0 } as never);
      expect(v4.results.map((r) => (r as unknown as { documents: Body[] }).documents[0].id)).toEqual([small.id]);
    }
    expect((await client.search.documents({ q: 'tidewatcher', containerTags: ['tide_big'], limit: 5 })).results).toHaveLength(5);
  }, 180_000);

  it('rejects invalid input with 400 {error, details} naming the field', async () => {
    await expectMemoryAnswer(client.add({ content: 'x', containerTag: 'has space' }), 400, /containerTag/);
    await expectMemoryAnswer(client.add({ content: 'x', containerTag: 'a'.repeat(101) }), 400, /containerTag/);
    await expectMemoryAnswer(client.add({ content: 'x', customId: 'c'.repeat(256) }), 400, /customId/);
    await expectMemoryAnswer(client.add({ content: 'x', metadata: { nested: { no: 1 } } as never }), 400, /metadata\.nested/);
    await expectMemoryAnswer(client.add({ content: 'x', entityContext: 'e'.repeat(1501) }), 400, /entityContext/);
    await expectMemoryAnswer(client.add({ content: 'x', dreaming: 'later' } as never), 400, /dreaming/);
    await expectMemoryAnswer(client.add({} as never), 400, /content/);
    await expectMemoryAnswer(client.add({ content: 'x'.repeat(1024 * 1024 + 1) }), 413);
    await expectMemoryAnswer(client.documents.batchAdd({ documents: [] }), 400, /documents/);
    await expectMemoryAnswer(client.documents.batchAdd({ documents: Array.from({ length: 601 }, () => 'x') }), 400, /documents/);
    await expectMemoryAnswer(client.search.memories({ q: '' }), 400, /q/);
    await expectMemoryAnswer(client.search.documents({ q: 'x', filters: { AND: [{ AND: [{ AND: [{ AND: [{ AND: [{ AND: [{ key: 'a', value: 'b' }] }] }] }] }] }] } }), 400, /filters/);
    await expectMemoryAnswer(client.documents.get('doesNotExist'), 404);
    await expectMemoryAnswer(client.post('/v4/conversations', { body: { conversationId: 'c1', messages: [{ role: 'robot', content: 'x' }] } }), 400, /messages\.0\.role/);
  });

  it('batch: objects and strings, batch defaults, item overrides, bad items reported in order', async () => {
    const batch = await client.documents.batchAdd({
      containerTag: 'batch_tag',
      metadata: { origin: 'batch' },
      documents: ['The first note mentions copper kettles.', { content: 'The second note covers brass lamps.', containerTag: 'item_tag', metadata: { origin: 'item' } }, { content: '' }, { content: 'ok', containerTag: 'bad tag!' }, { content: 'Fourth note about tin cups.', customId: 'batch-custom' }] as never,
    });
    expect(batch.success).toBe(3);
    expect(batch.failed).toBe(2);
    expect(batch.results.map((r) => r.status)).toEqual(['queued', 'queued', 'error', 'error', 'queued']);
    expect(batch.results[2]).toMatchObject({ id: '', error: expect.any(String), details: expect.stringMatching(/documents\.2\.content/) });
    expect(batch.results[3].details).toMatch(/documents\.3\.containerTag/);
    const second = await waitForDocument(client, batch.results[1].id, { dreaming: false });
    expect(second).toMatchObject({ containerTags: ['item_tag'], metadata: { origin: 'item' } });
    const first = await waitForDocument(client, batch.results[0].id, { dreaming: false });
    expect(first).toMatchObject({ containerTags: ['batch_tag'], metadata: { origin: 'batch' } });
  });

  it('customId: same id, append, full resend, and concurrent appends all kept', async () => {
    const a = await client.add({ content: 'Kofi plays the oud on Sundays.', customId: 'journal-1', containerTag: 'user_k' });
    const b = await client.add({ content: 'Kofi bought a new bicycle.', customId: 'journal-1', containerTag: 'user_k' });
    expect(b.id).toBe(a.id);
    let doc = await waitForDocument(client, a.id);
    expect(doc.content).toBe('Kofi plays the oud on Sundays.\nKofi bought a new bicycle.');
    await client.add({ content: 'Kofi plays the oud on Sundays.\nKofi bought a new bicycle.\nKofi moved to Accra.', customId: 'journal-1' });
    doc = await waitForDocument(client, a.id);
    expect(doc.content).toBe('Kofi plays the oud on Sundays.\nKofi bought a new bicycle.\nKofi moved to Accra.');
    expect((doc.memories as Body[]).filter((m) => m.memory === 'Kofi plays the oud on Sundays')).toHaveLength(1);

    const lines = Array.from({ length: 12 }, (_, i) => `Concurrent line number ${i} arrived.`);
    const results = await Promise.all(lines.map((content) => client.add({ content, customId: 'journal-2', containerTag: 'user_k' })));
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    doc = await waitForDocument(client, results[0].id);
    for (const line of lines) expect(doc.content).toContain(line);
    const chunks = await client.get<{ chunks: { position: number }[] }>(`/v3/documents/${results[0].id}/chunks`);
    expect(chunks.chunks.map((c) => c.position)).toEqual(chunks.chunks.map((_, i) => i));
  });

  it('conversations: turn-aware upsert, memories from user turns, and a profile', async () => {
    const turns = [
      { role: 'user', content: 'My name is Ines and I live in Lisbon.' },
      { role: 'assistant', content: 'Nice to meet you, Ines!' },
    ];
    const first = await client.post<Body>('/v4/conversations', { body: { conversationId: 'conv-1', messages: turns, containerTags: ['user_i'], metadata: { channel: 'web' } } });
    expect(first).toEqual({ id: expect.any(String), conversationId: 'conv-1', status: 'queued' });
    const next = [...turns, { role: 'user', content: [{ type: 'text', text: 'I started learning the cello this week.' }, { type: 'image_url', image_url: { url: 'https://example.com/cello.png' } }] }];
    const second = await client.post<Body>('/v4/conversations', { body: { conversationId: 'conv-1', messages: next, containerTags: ['user_i'] } });
    expect(second.id).toBe(first.id);
    const onlyNew = await client.post<Body>('/v4/conversations', { body: { customId: 'conv-1', containerTag: 'user_i', messages: [{ role: 'user', content: 'I moved to Porto last month.' }, { role: 'tool', content: 'ok', tool_call_id: 'call_1' }] } });
    expect(onlyNew.id).toBe(first.id);
    const doc = await waitForDocument(client, String(first.id));
    expect(doc.content).toBe(
      'user: My name is Ines and I live in Lisbon.\nassistant: Nice to meet you, Ines!\nuser: I started learning the cello this week. [image: https://example.com/cello.png]\nuser: I moved to Porto last month.\ntool call_1: ok',
    );
    const profile = await client.profile({ containerTag: 'user_i', q: 'cello' });
    expect(profile.profile.static).toEqual(expect.arrayContaining(['User\'s name is Ines and User live in Lisbon']));
    expect(profile.profile.dynamic).toEqual(expect.arrayContaining(['User started learning the cello this week']));
    expect(profile.profile.dynamic?.join(' ')).not.toContain('Nice to meet you');
    expect((profile.searchResults?.results as Body[])[0]).toMatchObject({ memory: expect.stringContaining('cello') });
  });

  it("patch: taking another document's customId is a 400 naming it (the unique index's refusal, read by driver code)", async () => {
    const first = await client.add({ content: 'First kiln log.', containerTag: 'user_u', customId: 'kiln-a' });
    const second = await client.add({ content: 'Second kiln log.', containerTag: 'user_u', customId: 'kiln-b' });
    const refused = await expectMemoryAnswer(client.documents.update(second.id, { customId: 'kiln-a' }), 400, null);
    expect(refused.error).toBe('customId kiln-a is used by another document');
    expect(await client.documents.get('kiln-b')).toMatchObject({ id: second.id });
    expect(await client.documents.get('kiln-a')).toMatchObject({ id: first.id });
  });

  it('patch: metadata in place, content reprocesses; list, processing, delete, bulk delete', async () => {
    const { id } = await client.add({ content: 'Original text about pottery.', containerTag: 'user_p', customId: 'pot-1' });
    await waitForDocument(client, id);
    const patched = await client.documents.update('pot-1', { metadata: { reviewed: true } });
    expect(patched).toEqual({ id, status: 'done' });
    expect(await client.documents.get(id)).toMatchObject({ status: 'done', metadata: { reviewed: true } });
    const replaced = await client.documents.update(id, { content: 'Replacement text about weaving.' });
    expect(replaced).toEqual({ id, status: 'queued' });
    await waitForDocument(client, id);
    expect((await client.search.documents({ q: 'pottery', containerTags: ['user_p'] })).results).toEqual([]);
    expect((await client.search.documents({ q: 'weaving', containerTags: ['user_p'] })).results).toHaveLength(1);

    const list = await client.documents.list({ containerTags: ['user_p'], limit: 10, page: 1 });
    expect(list.memories.map((d) => d.id)).toEqual([id]);
    expect(list.pagination).toMatchObject({ currentPage: 1, totalItems: 1, totalPages: 1 });
    const processing = await client.documents.listProcessing();
    expect(processing).toEqual({ documents: expect.any(Array), totalCount: expect.any(Number) });
    // A finished document is never listed; one just added is listed, with its fields, until it is done.
    expect(processing.documents.map((d) => d.id)).not.toContain(id);
    const fresh = await client.add({ content: 'Fresh text about glazing.', containerTag: 'user_p', metadata: { kiln: 'gas' } });
    const during = await client.documents.listProcessing();
    const listed = during.documents.find((d) => d.id === fresh.id);
    if (listed) expect(listed).toMatchObject({ status: expect.stringMatching(/^(queued|extracting|chunking|embedding|indexing)$/), metadata: { kiln: 'gas' }, containerTags: ['user_p'] });
    else expect((await client.documents.get(fresh.id)).status).toMatch(/^(done|failed)$/);
    await waitForDocument(client, fresh.id);
    expect((await client.documents.listProcessing()).documents.map((d) => d.id)).not.toContain(fresh.id);

    expect(await client.documents.delete('pot-1')).toBeNull();
    await expectMemoryAnswer(client.documents.get(id), 404);
    const other = await client.add({ content: 'Bulk one.', containerTag: 'user_p' });
    const bulk = await client.documents.deleteBulk({ ids: [other.id, 'missingDocument'] });
    expect(bulk).toMatchObject({ success: true, deletedCount: 1, errors: [{ id: 'missingDocument', error: 'Document not found' }] });
    await expectMemoryAnswer(client.documents.deleteBulk({}), 400);
  });

  it('memories: create, list with history, versioned update, forget (409 the second time)', async () => {
    const created = await client.post<{ memories: Body[] }>('/v4/memories', { body: { containerTag: 'user_m', memories: [{ content: 'Dana prefers green tea', isStatic: true }] } });
    const memoryId = String(created.memories[0].id);
    const updated = await client.memories.updateMemory({ containerTag: 'user_m', id: memoryId, newContent: 'Dana prefers jasmine tea' });
    expect(updated).toMatchObject({ version: 2, parentMemoryId: memoryId, rootMemoryId: memoryId, memory: 'Dana prefers jasmine tea' });
    const list = await client.post<{ memoryEntries: Body[] }>('/v4/memories/list', { body: { containerTags: ['user_m'] } });
    expect(list.memoryEntries).toHaveLength(1);
    expect(list.memoryEntries[0]).toMatchObject({ id: updated.id, isLatest: true, history: [expect.objectContaining({ id: memoryId, isLatest: false })] });
    const found = await client.search.memories({ q: 'jasmine tea', containerTag: 'user_m' });
    expect(found.results[0]).toMatchObject({ id: updated.id, context: { parents: [expect.objectContaining({ version: -1, memory: 'Dana prefers green tea' })] } });
    expect(await client.memories.forget({ containerTag: 'user_m', id: updated.id, reason: 'outdated' })).toEqual({ id: updated.id, forgotten: true });
    await expectMemoryAnswer(client.memories.forget({ containerTag: 'user_m', id: updated.id }), 409);
    expect((await client.search.memories({ q: 'jasmine tea', containerTag: 'user_m' })).results).toEqual([]);
    await expectMemoryAnswer(client.memories.forget({ containerTag: 'user_m', id: 'nope' }), 404);
  });

  it('dreaming: each fact meets the memories as the facts before it left them, in its document and the next', async () => {
    const dream = async (content: string) => {
      const { id } = await client.add({ content, containerTag: 'user_chain' });
      expect(await waitForDocument(client, id)).toMatchObject({ status: 'done', dreamingStatus: 'done' });
    };
    const entries = async () => (await client.post<{ memoryEntries: Body[] }>('/v4/memories/list', { body: { containerTags: ['user_chain'] } })).memoryEntries;
    // "User live in …" share a subject (fact key): the second updates the first within one document.
    await dream('I live in Oslo. I live in Bergen. I work at Equinor as an engineer.');
    const first = await entries();
    expect(first.map((m) => m.memory).sort()).toEqual(['User live in Bergen', 'User work at Equinor as an engineer']);
    const bergen = first.find((m) => m.memory === 'User live in Bergen')!;
    const oslo = (bergen.history as Body[])[0];
    expect(bergen).toMatchObject({ version: 2, isLatest: true, sourceCount: 1, rootMemoryId: oslo.id, parentMemoryId: oslo.id });
    expect(oslo).toMatchObject({ memory: 'User live in Oslo', version: 1, isLatest: false });

    // The next document repeats a fact (one more source) and moves again (a third version of the chain).
    await dream('I work at Equinor as an engineer. I live in Trondheim.');
    const next = await entries();
    expect(next.map((m) => m.memory).sort()).toEqual(['User live in Trondheim', 'User work at Equinor as an engineer']);
    expect(next.find((m) => m.memory === 'User work at Equinor as an engineer')).toMatchObject({ version: 1, sourceCount: 2, isLatest: true });
    const trondheim = next.find((m) => m.memory === 'User live in Trondheim')!;
    expect(trondheim).toMatchObject({ version: 3, parentMemoryId: bergen.id, rootMemoryId: oslo.id });
    expect((trondheim.history as Body[]).map((h) => [h.memory, h.isLatest])).toEqual(
      expect.arrayContaining([
        ['User live in Oslo', false],
        ['User live in Bergen', false],
      ]),
    );
    // Only latest memories are searchable: the replaced ones left the index, the new one entered it.
    const found = async (q: string) => (await client.search.memories({ q, containerTag: 'user_chain', threshold: 0 })).results.map((r) => r.memory);
    expect(await found('Trondheim')).toEqual(['User live in Trondheim']);
    expect(await found('Bergen')).toEqual([]);
    expect(await found('Oslo')).toEqual([]);
  });

  it('files: text, markdown, HTML, JSON, PDF, DOCX; bracket metadata; unsupported types fail in the document', async () => {
    const upload = async (data: Buffer, name: string, type: string, extra: Body = {}) => {
      const { id } = await client.documents.uploadFile({ file: await toFile(data, name, { type }), containerTag: 'files', ...extra });
      return waitForDocument(client, id, { dreaming: false });
    };
    expect((await upload(Buffer.from('Plain text about otters.'), 'a.txt', 'text/plain', { metadata: JSON.stringify({ kind: 'txt', n: 1 }) })).metadata).toEqual({ kind: 'txt', n: 1 });
    const md = await upload(Buffer.from('# Heron Notes\n\nHerons nest in colonies.'), 'b.md', 'text/markdown', { metadata: { kind: 'md' } });
    expect(md).toMatchObject({ status: 'done', metadata: { kind: 'md' } });
    const html = await upload(Buffer.from('<html><body><nav>menu</nav><p>Puffins dive deep.</p><script>x()</script></body></html>'), 'c.html', 'text/html');
    expect(html).toMatchObject({ status: 'done', type: 'webpage', content: 'Puffins dive deep.' });
    expect((await upload(Buffer.from(JSON.stringify({ animal: 'walrus', tusks: 2 })), 'd.json', 'application/json')).content).toContain('"animal": "walrus"');
    const pdf = await upload(makePdf('Narwhals live in Arctic waters.'), 'e.pdf', 'application/pdf', { fileType: 'pdf' });
    expect(pdf).toMatchObject({ status: 'done', type: 'pdf' });
    expect(pdf.content).toContain('Narwhals live in Arctic waters.');
    const docx = await upload(makeDocx('Beluga whales sing.\nThey are white.'), 'f.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(docx).toMatchObject({ status: 'done', content: expect.stringContaining('Beluga whales sing.') });
    const bad = await upload(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]), 'g.png', 'image/png');
    expect(bad).toMatchObject({ status: 'failed', error: expect.stringMatching(/Unsupported file type/) });
    const search = await client.search.documents({ q: 'narwhals beluga', containerTags: ['files'] });
    expect(search.results.length).toBe(2);
    await expectMemoryAnswer(client.documents.uploadFile({ file: await toFile(Buffer.from('x'), 'x.txt'), fileType: 'image' }), 400, /mimeType/);
  });

  it('URLs: fetched with redirects into clean text; private addresses are refused unless allowed', async () => {
    const { id } = await client.add({ content: `${web.url}/moved`, containerTag: 'web' });
    const doc = await waitForDocument(client, id, { dreaming: false });
    expect(doc).toMatchObject({ status: 'done', type: 'webpage', title: 'Glacier Report', url: `${web.url}/article` });
    const chunks = await client.get<{ chunks: { content: string }[] }>(`/v3/documents/${id}/chunks`);
    const text = chunks.chunks.map((c) => c.content).join(' ');
    expect(text).toContain('Aletsch glacier retreated');
    expect(text).not.toMatch(/tracking|Copyright footer|Home \| About/);

    const strict = await startKeel({ env: { KEEL_API_KEYS: 'test-key' } });
    try {
      const strictClient = memoryClient(strict.url);
      const refused = await strictClient.add({ content: `${web.url}/article` });
      expect(await waitForDocument(strictClient, refused.id, { dreaming: false })).toMatchObject({ status: 'failed', error: expect.stringMatching(/private address/) });
    } finally {
      await strict.close();
    }
  });

  it('embeddings: with an OpenAI-compatible provider, chunks get vectors and search becomes hybrid', async () => {
    const embeddings = await startEmbeddingServer();
    process.env.KEEL_EMBEDDING_URL = embeddings.url;
    const semantic = await startKeel({ env: { KEEL_API_KEYS: 'test-key' } });
    delete process.env.KEEL_EMBEDDING_URL;
    try {
      const c = memoryClient(semantic.url);
      const { id } = await c.add({ content: 'My car is crimson and fast.', containerTag: 'garage' });
      expect(await waitForDocument(c, id, { dreaming: false })).toMatchObject({ status: 'done' });
      expect(embeddings.requests).toBeGreaterThan(0);
      // No word in common: only the vectors can find it.
      const found = await c.search.documents({ q: 'automobile', containerTags: ['garage'] });
      expect(found.results.map((r) => r.documentId)).toEqual([id]);
      const hybrid = await c.search.memories({ q: 'scarlet automobile', containerTag: 'garage', searchMode: 'documents', threshold: 0.1 });
      expect(hybrid.results[0]).toMatchObject({ chunk: 'My car is crimson and fast.' });
    } finally {
      await semantic.close();
      await embeddings.close();
    }
  });
});
