import Supermemory, { toFile } from 'supermemory';
import { DataSource } from 'typeorm';
import { startKeel, TestKeel } from './support/keel';
import { setEnv } from './support/env';
import { expectMemoryAnswer } from './support/error-bodies';
import { memoryClient, waitForDocument } from './support/memory-fixtures';
import { ScriptedProvider } from './support/scripted-provider';

type Body = Record<string, unknown>;

const UNSET = {
  chunkSize: null,
  shouldLLMFilter: null,
  filterPrompt: null,
  includeItems: null,
  excludeItems: null,
  githubClientId: null,
  githubCustomKeyEnabled: null,
  googleDriveClientId: null,
  googleDriveCustomKeyEnabled: null,
  notionClientId: null,
  notionCustomKeyEnabled: null,
  onedriveClientId: null,
  onedriveCustomKeyEnabled: null,
};

describe('memory: organisation settings (GET/PATCH /v3/settings through the supermemory SDK)', () => {
  let keel: TestKeel;
  let client: Supermemory;
  let model: ScriptedProvider;
  let restoreEnv: () => void;

  beforeAll(async () => {
    model = await ScriptedProvider.start();
    restoreEnv = setEnv({ KEEL_MEMORY_LLM_URL: model.url, KEEL_MEMORY_LLM_MODEL: 'memory-model', KEEL_MEMORY_LLM_RETRIES: '0' });
    keel = await startKeel({ env: { KEEL_API_KEYS: 'test-key' } });
    client = memoryClient(keel.url);
  });

  afterAll(async () => {
    await keel.close();
    restoreEnv();
    await model.close();
  });

  it('answers every field unset at first, and needs the API key', async () => {
    expect(await client.settings.get()).toEqual(UNSET);
    await expectMemoryAnswer(memoryClient(keel.url, 'wrong').settings.get(), 401);
  });

  it('changes only the fields sent, answers them as stored, keeps client secrets write-only, and persists them', async () => {
    const answer = await client.settings.update({ chunkSize: 512, notionCustomKeyEnabled: true, notionClientId: 'notion-id', notionClientSecret: 'notion-secret' });
    expect(answer).toEqual({ orgId: 'local', orgSlug: 'local', updated: { chunkSize: 512, notionCustomKeyEnabled: true, notionClientId: 'notion-id' } });
    await client.settings.update({ includeItems: ['*.md', 'docs/**'], filterPrompt: 'Only lighthouses.' });
    const expected = { ...UNSET, chunkSize: 512, notionCustomKeyEnabled: true, notionClientId: 'notion-id', includeItems: ['*.md', 'docs/**'], filterPrompt: 'Only lighthouses.' };
    expect(await client.settings.get()).toEqual(expected);
    const [row] = await keel.keel.app.get(DataSource).query(`SELECT notion_client_secret FROM organization_settings`);
    expect(row.notion_client_secret).toBe('notion-secret');

    // -1 and null put a field back to its default.
    expect((await client.settings.update({ chunkSize: -1, includeItems: null })).updated).toEqual({ chunkSize: null, includeItems: null });
    const restarted = await startKeel({ reuse: keel });
    try {
      expect(await memoryClient(restarted.url).settings.get()).toEqual({ ...expected, chunkSize: null, includeItems: null });
    } finally {
      await restarted.close();
    }
    await client.settings.update({ filterPrompt: null, notionClientId: null, notionClientSecret: null, notionCustomKeyEnabled: null });
  });

  it('refuses unknown and invalid fields with 400 {error, details} naming the field, and changes nothing', async () => {
    const before = await client.settings.get();
    await expectMemoryAnswer(client.settings.update({ chunkSize: 800, chunkOverlap: 5 } as never), 400, /^chunkOverlap: is not a setting/);
    await expectMemoryAnswer(client.settings.update({ chunkSize: 5 }), 400, /chunkSize: must be -1 \(the default\) or between 100 and 20000/);
    await expectMemoryAnswer(client.settings.update({ chunkSize: 512.5 }), 400, /chunkSize: must be an integer/);
    await expectMemoryAnswer(client.settings.update({ shouldLLMFilter: 'yes' as never }), 400, /shouldLLMFilter: must be a boolean/);
    await expectMemoryAnswer(client.settings.update({ filterPrompt: 7 as never }), 400, /filterPrompt: must be a string/);
    await expectMemoryAnswer(client.settings.update({ excludeItems: ['*.md', 3] }), 400, /excludeItems\.1: must be a non-empty pattern/);
    await expectMemoryAnswer(client.settings.update({ includeItems: { a: 1 } }), 400, /includeItems: must be a non-empty pattern/);
    const raw = await fetch(`${keel.url}/v3/settings`, { method: 'PATCH', headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' }, body: '[1]' });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toEqual({ error: 'Invalid request parameters', details: expect.stringContaining('JSON object') });
    expect(await client.settings.get()).toEqual(before);
  });

  it('chunks documents at the chunkSize set, and at the default once it is reset', async () => {
    const sentence = (i: number) => `Sentence number ${i} tells about the lighthouse keeper and the foghorn on the island.`;
    const content = Array.from({ length: 30 }, (_, i) => sentence(i)).join(' ');
    const chunksOf = async (id: string) => (await client.get<{ chunks: { content: string }[] }>(`/v3/documents/${id}/chunks`)).chunks.map((c) => c.content);

    await client.settings.update({ chunkSize: 200 });
    const small = await client.add({ content, taskType: 'superrag' } as never);
    expect((await waitForDocument(client, small.id)).status).toBe('done');
    const smallChunks = await chunksOf(small.id);
    expect(smallChunks.length).toBeGreaterThanOrEqual(content.length / 200);
    expect(Math.max(...smallChunks.map((c) => c.length))).toBeLessThanOrEqual(200);

    await client.settings.update({ chunkSize: -1 });
    const regular = await client.add({ content, taskType: 'superrag' } as never);
    await waitForDocument(client, regular.id);
    const regularChunks = await chunksOf(regular.id);
    expect(regularChunks.length).toBeLessThan(smallChunks.length / 2);
    expect(Math.max(...regularChunks.map((c) => c.length))).toBeGreaterThan(200);
  });

  it('ingests only uploads whose names pass includeItems and excludeItems; the others fail saying which pattern', async () => {
    await client.settings.update({ includeItems: ['*.md', 'docs/**'], excludeItems: '*.test.*' });
    const upload = async (name: string) => {
      const added = await client.documents.uploadFile({ file: await toFile(Buffer.from(`# ${name}\n\nThe keeper logs the weather twice a day.`), name), taskType: 'superrag' } as never);
      return waitForDocument(client, added.id);
    };
    expect(await upload('guide.md')).toMatchObject({ status: 'done' });
    expect(await upload('guide.test.md')).toMatchObject({ status: 'failed', error: expect.stringContaining(`excludeItems pattern "*.test.*"`) });
    expect(await upload('notes.txt')).toMatchObject({ status: 'failed', error: expect.stringContaining('none of the organisation\'s includeItems patterns') });
    // Text documents have no name: the patterns do not apply to them.
    const text = await client.add({ content: 'A plain note about the keeper.', taskType: 'superrag' } as never);
    expect(await waitForDocument(client, text.id)).toMatchObject({ status: 'done' });

    await client.settings.update({ includeItems: null, excludeItems: null });
    expect(await upload('notes.txt')).toMatchObject({ status: 'done' });
  });

  it('gives the memory model the filter prompt while shouldLLMFilter is on, and only then', async () => {
    await client.settings.update({ shouldLLMFilter: true, filterPrompt: 'Remember only facts about lighthouses.' });
    const systemOf = (body: any) => (body.messages as { role: string; content: string }[]).find((m) => m.role === 'system')!.content;
    let system = '';
    model.reply((body) => {
      system = systemOf(body);
      return { steps: [{ text: JSON.stringify({ facts: [] }) }] };
    });
    const filtered = await client.add({ content: 'Marta bakes bread every Sunday.', containerTag: 'settings_filter', dreaming: 'instant' } as never);
    const doc = await waitForDocument(client, filtered.id);
    expect(doc).toMatchObject({ status: 'done', dreamingStatus: 'done' });
    expect(system).toContain('Remember only facts about lighthouses.');
    expect((doc.memories as Body[] | undefined) ?? []).toEqual([]);

    await client.settings.update({ shouldLLMFilter: false });
    model.reply((body) => {
      system = systemOf(body);
      return { steps: [{ text: JSON.stringify({ facts: [] }) }] };
    });
    const unfiltered = await client.add({ content: 'Marta bakes bread every Monday.', containerTag: 'settings_filter', dreaming: 'instant' } as never);
    await waitForDocument(client, unfiltered.id);
    expect(system).not.toContain('lighthouses');
  });
});
