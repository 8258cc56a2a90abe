import Supermemory from 'supermemory';
import { startKeel, TestKeel } from './support/keel';
import { expectMemoryAnswer } from './support/error-bodies';
import { memoryClient, startWebServer, waitForDocument, WebServer } from './support/memory-fixtures';
import { ScriptedProvider, ScriptedReply } from './support/scripted-provider';

type Body = Record<string, unknown>;
interface ModelRequest {
  kind: string;
  existingMemories: { id: string; memory: string; isStatic: boolean }[];
  document: string;
}
interface Fact {
  memory: string;
  isStatic: boolean;
  relation: 'new' | 'updates' | 'extends' | 'derives';
  relatedTo: string | null;
}

/** What Keel sent the memory model in one request (the prompt is JSON). */
function modelRequest(body: any): ModelRequest {
  const user = (body.messages as { role: string; content: unknown }[]).find((m) => m.role === 'user')!;
  const text = typeof user.content === 'string' ? user.content : (user.content as { text: string }[]).map((p) => p.text).join('');
  return JSON.parse(text) as ModelRequest;
}

function facts(...list: Fact[]): ScriptedReply {
  return { steps: [{ text: JSON.stringify({ facts: list }) }] };
}

/** Answer with facts that refer to existing memories by their text (the alias is found in the request). */
function factsReferring(build: (alias: (memory: string) => string) => Fact[]): (body: any) => ScriptedReply {
  return (body) => {
    const known = modelRequest(body).existingMemories;
    return facts(...build((memory) => known.find((m) => m.memory === memory)?.id ?? 'missing'));
  };
}

describe('memory: extraction by a configured memory model (OpenAI-compatible, structured output)', () => {
  let keel: TestKeel;
  let client: Supermemory;
  let model: ScriptedProvider;
  let web: WebServer;

  beforeAll(async () => {
    model = await ScriptedProvider.start();
    web = await startWebServer();
    Object.assign(process.env, {
      KEEL_MEMORY_LLM_URL: model.url,
      KEEL_MEMORY_LLM_MODEL: 'memory-model',
      KEEL_MEMORY_LLM_API_KEY: 'memory-key',
      KEEL_MEMORY_LLM_RETRIES: '2',
      KEEL_INGEST_WEBHOOKS: `${web.url}/hook`,
      KEEL_INGEST_WEBHOOK_BACKOFF_MS: '20',
    });
    keel = await startKeel({ env: { KEEL_API_KEYS: 'test-key' } });
    client = memoryClient(keel.url);
  });

  afterAll(async () => {
    for (const name of ['KEEL_MEMORY_LLM_URL', 'KEEL_MEMORY_LLM_MODEL', 'KEEL_MEMORY_LLM_API_KEY', 'KEEL_MEMORY_LLM_RETRIES', 'KEEL_INGEST_WEBHOOKS', 'KEEL_INGEST_WEBHOOK_BACKOFF_MS']) delete process.env[name];
    await keel?.close();
    await model?.close();
    await web?.close();
  });

  const add = async (content: string, containerTag: string) => {
    const { id } = await client.add({ content, containerTag, dreaming: 'instant' } as never);
    const doc = await waitForDocument(client, id);
    expect(doc).toMatchObject({ status: 'done', dreamingStatus: 'done' });
    return doc;
  };
  /** The status event that ended dreaming for a document, as the webhook received it. */
  const dreamed = async (id: string): Promise<Body> => {
    for (let i = 0; i < 200; i++) {
      const hook = web.hooks.map((h) => h.data as Body).find((d) => d.id === id && d.dreamingStatus === 'done' && d.status === 'done');
      if (hook) return hook;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no dreaming-done event for ${id}`);
  };
  const list = async (tag: string) => (await client.post<{ memoryEntries: Body[] }>('/v4/memories/list', { body: { containerTags: [tag], limit: 100 } })).memoryEntries;

  it('stores the model facts, classified static/dynamic, and relates later facts to them (updates, extends, derives)', async () => {
    model.reply(
      facts(
        { memory: 'Alex lives in Berlin', isStatic: true, relation: 'new', relatedTo: null },
        { memory: 'Alex works at Stripe as a product manager', isStatic: true, relation: 'new', relatedTo: null },
        { memory: 'Alex is preparing a talk on payment APIs', isStatic: false, relation: 'new', relatedTo: null },
      ),
    );
    const first = await add('Alex here. I live in Berlin and I am a PM at Stripe. Currently preparing a talk on payment APIs.', 'llm_alex');
    expect((first.memories as Body[]).map((m) => m.memory).sort()).toEqual(['Alex is preparing a talk on payment APIs', 'Alex lives in Berlin', 'Alex works at Stripe as a product manager']);
    expect(await dreamed(first.id)).toMatchObject({ memoryExtractor: 'model' });
    expect(await dreamed(first.id)).not.toHaveProperty('extractionFallback');

    const [request] = model.prompts;
    expect(request.headers.authorization).toBe('Bearer memory-key');
    expect(request.body).toMatchObject({ model: 'memory-model', response_format: { type: 'json_schema' } });
    expect(request.body.stream).not.toBe(true);
    expect(modelRequest(request.body)).toEqual({ kind: 'document', existingMemories: [], document: expect.stringContaining('PM at Stripe') });

    const before = await list('llm_alex');
    const byText = (entries: Body[], memory: string) => entries.find((m) => m.memory === memory)!;
    const berlin = byText(before, 'Alex lives in Berlin');
    const talk = byText(before, 'Alex is preparing a talk on payment APIs');
    const job = byText(before, 'Alex works at Stripe as a product manager');

    model.reply(
      factsReferring((alias) => [
        { memory: 'Alex lives in Lisbon', isStatic: true, relation: 'updates', relatedTo: alias('Alex lives in Berlin') },
        { memory: 'Alex gives the payment APIs talk in May in Porto', isStatic: false, relation: 'extends', relatedTo: alias('Alex is preparing a talk on payment APIs') },
        { memory: 'Alex likely works remotely for Stripe', isStatic: false, relation: 'derives', relatedTo: alias('Alex works at Stripe as a product manager') },
      ]),
    );
    const second = await add('Update from Alex: I moved to Lisbon last month. The payments talk is in May, in Porto.', 'llm_alex');
    const sent = modelRequest(model.prompts[1].body);
    expect(sent.existingMemories.map((m) => m.memory).sort()).toEqual(['Alex is preparing a talk on payment APIs', 'Alex lives in Berlin', 'Alex works at Stripe as a product manager']);
    expect(sent.existingMemories.every((m) => /^m\d+$/.test(m.id))).toBe(true);
    expect(sent.existingMemories.find((m) => m.memory === 'Alex lives in Berlin')).toMatchObject({ isStatic: true });
    expect(await dreamed(second.id)).toMatchObject({ memoryExtractor: 'model' });

    const after = await list('llm_alex');
    expect(after.map((m) => m.memory)).not.toContain('Alex lives in Berlin');
    const lisbon = byText(after, 'Alex lives in Lisbon');
    expect(lisbon).toMatchObject({ version: 2, isLatest: true, isStatic: true, parentMemoryId: berlin.id, rootMemoryId: berlin.id, memoryRelations: { [berlin.id as string]: 'updates' } });
    expect((lisbon.history as Body[]).map((h) => h.memory)).toEqual(['Alex lives in Berlin']);
    expect((lisbon.history as Body[])[0]).toMatchObject({ id: berlin.id, isLatest: false });

    const may = byText(after, 'Alex gives the payment APIs talk in May in Porto');
    expect(may).toMatchObject({ version: 1, isLatest: true, isInference: false, parentMemoryId: talk.id, memoryRelations: { [talk.id as string]: 'extends' } });
    expect(byText(after, 'Alex is preparing a talk on payment APIs')).toMatchObject({ isLatest: true });
    const remote = byText(after, 'Alex likely works remotely for Stripe');
    expect(remote).toMatchObject({ isInference: true, isLatest: true, memoryRelations: { [job.id as string]: 'derives' } });

    const profile = await client.profile({ containerTag: 'llm_alex' });
    expect(profile.profile.static).toEqual(expect.arrayContaining(['Alex lives in Lisbon', 'Alex works at Stripe as a product manager']));
    expect(profile.profile.static).not.toContain('Alex lives in Berlin');
    expect(profile.profile.dynamic).toEqual(expect.arrayContaining(['Alex is preparing a talk on payment APIs', 'Alex gives the payment APIs talk in May in Porto']));

    const search = await client.search.memories({ q: 'where does Alex live', containerTag: 'llm_alex', threshold: 0 });
    expect(search.results.map((r) => r.memory)).toContain('Alex lives in Lisbon');
    expect(search.results.map((r) => r.memory)).not.toContain('Alex lives in Berlin');
  });

  it('within one document: a second update of a memory the first already replaced starts its own chain', async () => {
    model.reply(facts({ memory: 'Kim drives a blue car', isStatic: false, relation: 'new', relatedTo: null }));
    await add('Kim drives a blue car.', 'llm_kim');
    const [blue] = await list('llm_kim');
    model.reply(
      factsReferring((alias) => [
        { memory: 'Kim drives a red car', isStatic: false, relation: 'updates', relatedTo: alias('Kim drives a blue car') },
        { memory: 'Kim drives a green car', isStatic: false, relation: 'updates', relatedTo: alias('Kim drives a blue car') },
        { memory: 'Kim cycles to work', isStatic: false, relation: 'new', relatedTo: null },
      ]),
    );
    await add('Kim swapped the blue car for a red one, then a green one, and cycles to work.', 'llm_kim');
    const after = await list('llm_kim');
    const byText = (memory: string) => after.find((m) => m.memory === memory);
    expect(after.map((m) => m.memory).sort()).toEqual(['Kim cycles to work', 'Kim drives a green car', 'Kim drives a red car']);
    expect(byText('Kim drives a red car')).toMatchObject({ version: 2, parentMemoryId: blue.id, rootMemoryId: blue.id, isLatest: true });
    expect(byText('Kim drives a green car')).toMatchObject({ version: 1, parentMemoryId: null, rootMemoryId: null, isLatest: true });
    expect(byText('Kim cycles to work')).toMatchObject({ version: 1, parentMemoryId: null, isLatest: true });
  });

  it('gives a conversation to the model as one, and keeps other containers out of its context', async () => {
    model.reply(facts({ memory: 'User is allergic to peanuts', isStatic: true, relation: 'new', relatedTo: null }));
    const sent = await client.post<{ id: string }>('/v4/conversations', {
      body: { conversationId: 'llm-conv-1', containerTags: ['llm_conv'], dreaming: 'instant', messages: [{ role: 'user', content: 'I am allergic to peanuts.' }, { role: 'assistant', content: 'Noted, no peanuts.' }] },
    });
    await waitForDocument(client, sent.id);
    const request = modelRequest(model.prompts.at(-1)!.body);
    expect(request).toMatchObject({ kind: 'conversation', existingMemories: [] });
    expect(request.document).toMatch(/allergic to peanuts[\s\S]*no peanuts/);
    expect((await list('llm_conv')).map((m) => m.memory)).toEqual(['User is allergic to peanuts']);
  });

  it('falls back to the deterministic extractor when the model answers malformed output, and records why', async () => {
    model.reply({ steps: [{ text: 'Sure! Here are the facts: Jordan lives in Oslo.' }] });
    const doc = await add('Jordan lives in Oslo. Jordan plays the cello every weekend.', 'llm_jordan');
    expect((doc.memories as Body[]).map((m) => m.memory).sort()).toEqual(['Jordan lives in Oslo', 'Jordan plays the cello every weekend']);
    expect(await dreamed(doc.id)).toMatchObject({ memoryExtractor: 'deterministic', extractionFallback: expect.stringMatching(/not valid memory JSON/) });
  });

  it('falls back when the model refers to a memory it was not shown, or refuses the request', async () => {
    model.reply(facts({ memory: 'Kim lives in Seoul', isStatic: true, relation: 'updates', relatedTo: 'm42' }));
    const unknown = await add('Kim lives in Seoul. Kim teaches chemistry at a high school.', 'llm_kim');
    expect((unknown.memories as Body[]).map((m) => m.memory).sort()).toEqual(['Kim lives in Seoul', 'Kim teaches chemistry at a high school']);
    expect(await dreamed(unknown.id)).toMatchObject({ memoryExtractor: 'deterministic', extractionFallback: expect.stringMatching(/unknown memory "m42"/) });

    const before = model.prompts.length;
    model.reply({ error: { status: 400, message: 'model does not exist' } });
    const refused = await add('Lee lives in Busan. Lee collects vinyl records.', 'llm_lee');
    expect(model.prompts.length - before).toBe(1);
    expect((refused.memories as Body[]).map((m) => m.memory).sort()).toEqual(['Lee collects vinyl records', 'Lee lives in Busan']);
    expect(await dreamed(refused.id)).toMatchObject({ memoryExtractor: 'deterministic', extractionFallback: expect.stringMatching(/HTTP 400.*model does not exist/) });
  });

  it('retries a retryable model failure with backoff, then uses the answer', async () => {
    const before = model.prompts.length;
    model.reply(
      { error: { status: 503, message: 'overloaded', headers: { 'retry-after-ms': '20' } } },
      { error: { status: 429, message: 'slow down', headers: { 'retry-after-ms': '20' } } },
      facts({ memory: 'Sam runs an urban beekeeping club', isStatic: false, relation: 'new', relatedTo: null }),
    );
    const doc = await add('Sam started a beekeeping club on the roof of the community centre.', 'llm_sam');
    expect(model.prompts.length - before).toBe(3);
    expect((doc.memories as Body[]).map((m) => m.memory)).toEqual(['Sam runs an urban beekeeping club']);
    expect(await dreamed(doc.id)).toMatchObject({ memoryExtractor: 'model' });
  });

  it('falls back after the retries are spent, without failing the document', async () => {
    const before = model.prompts.length;
    model.reply(...[1, 2, 3].map(() => ({ error: { status: 500, message: 'boom', headers: { 'retry-after-ms': '10' } } })));
    const doc = await add('Rae lives in Perth. Rae sails on the Swan River.', 'llm_rae');
    expect(model.prompts.length - before).toBe(3);
    expect((doc.memories as Body[]).map((m) => m.memory).sort()).toEqual(['Rae lives in Perth', 'Rae sails on the Swan River']);
    expect(await dreamed(doc.id)).toMatchObject({ memoryExtractor: 'deterministic', extractionFallback: expect.stringMatching(/HTTP 500/) });
  });

  it('profile: `include` picks the parts, `buckets` sorts facts (preferences by default); forget selects by content', async () => {
    const tag = 'llm_pat';
    await client.post('/v4/memories', {
      body: {
        containerTag: tag,
        memories: [
          { content: 'Pat prefers window seats on long flights', isStatic: true },
          { content: 'Pat works as a nurse in Leeds', isStatic: true },
          { content: 'Pat is training for a half marathon in June', isStatic: false },
        ],
      },
    });
    const classic = await client.profile({ containerTag: tag });
    expect(Object.keys(classic.profile).sort()).toEqual(['dynamic', 'static']);
    const all = await client.profile({ containerTag: tag, include: ['static', 'dynamic', 'buckets'] } as never);
    expect(all.profile).toEqual({
      static: expect.arrayContaining(['Pat prefers window seats on long flights', 'Pat works as a nurse in Leeds']),
      dynamic: ['Pat is training for a half marathon in June'],
      buckets: { preferences: ['Pat prefers window seats on long flights'] },
    });
    const sorted = await client.profile({ containerTag: tag, include: ['buckets'], buckets: ['preferences', 'work', 'fitness_training'] } as never);
    expect(sorted.profile).toEqual({
      buckets: { preferences: ['Pat prefers window seats on long flights'], work: ['Pat works as a nurse in Leeds'], fitness_training: ['Pat is training for a half marathon in June'] },
    });
    const withBuckets = await client.profile({ containerTag: tag, buckets: ['work'] } as never);
    expect(Object.keys(withBuckets.profile).sort()).toEqual(['buckets', 'dynamic', 'static']);
    await expectMemoryAnswer(client.profile({ containerTag: tag, include: ['everything'] } as never), 400, /include/);
    await expectMemoryAnswer(client.profile({ containerTag: tag, buckets: ['no spaces'] } as never), 400, /buckets/);
    expect(await client.post('/v4/profile/buckets', { body: { containerTag: tag } })).toEqual({ buckets: [{ key: 'preferences', description: expect.any(String) }] });
    await expectMemoryAnswer(client.post('/v4/profile/buckets', { body: {} }), 400, /containerTag/);

    const forgotten = await client.memories.forget({ containerTag: tag, content: 'Pat is training for a half marathon in June' });
    expect(forgotten).toEqual({ id: expect.any(String), forgotten: true });
    expect((await client.profile({ containerTag: tag })).profile.dynamic).toEqual([]);
    await expectMemoryAnswer(client.memories.forget({ containerTag: tag, content: 'Pat is training for a half marathon in June' }), 409);
    await expectMemoryAnswer(client.memories.forget({ containerTag: tag, content: 'Pat never said this' }), 404);
  });
});
