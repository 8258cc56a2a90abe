import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AssistantHarness, startAssistantHarness } from './support/assistant-harness';
import { tempDir } from './support/keel';
import { expectReferenceSchema } from './support/reference-schema';
import { ScriptedProvider } from './support/scripted-provider';
import { SseClient } from './support/sse';

type Client = ReturnType<typeof createOpencodeClient>;

const COMPACTION_REQUEST = 'Provide a detailed prompt for continuing our conversation above.';
const CONTINUE = 'Continue if you have next steps';

interface Project {
  dir: string;
  client: Client;
  events: SseClient;
}

describe('assistant: summarize / compaction, pruning, the session diff', () => {
  let harness: AssistantHarness;
  let scripted: ScriptedProvider;
  const projects: Project[] = [];

  beforeAll(async () => {
    harness = await startAssistantHarness({ prefix: 'keel-compaction-' });
    scripted = harness.scripted;
  });

  afterAll(async () => {
    for (const project of projects) {
      project.events.close();
      rmSync(project.dir, { recursive: true, force: true });
    }
    await harness.close();
  });

  /** A git project of its own (snapshots need git) whose model is the scripted one, with `limit` and extra config. */
  async function project(options: { limit?: { context: number; output: number }; config?: Record<string, unknown>; files?: Record<string, string> } = {}): Promise<Project> {
    const dir = tempDir('keel-compaction-project-');
    const config = scripted.config() as { provider: { scripted: { models: Record<string, { limit: unknown }> } } };
    if (options.limit) config.provider.scripted.models['scripted-model'].limit = options.limit;
    writeFileSync(join(dir, 'opencode.json'), JSON.stringify({ ...config, ...options.config }));
    for (const [name, content] of Object.entries(options.files ?? {})) writeFileSync(join(dir, name), content);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'initial');
    const client = createOpencodeClient({ baseUrl: harness.keel.url, directory: dir });
    const events = await SseClient.open(`${harness.keel.url}/event?directory=${encodeURIComponent(dir)}`);
    const created = { dir, client, events };
    projects.push(created);
    return created;
  }

  async function newSession(client: Client): Promise<string> {
    const { data } = await client.session.create({});
    return data!.id;
  }

  /** Request bodies' messages without the system prompt, as role + text. */
  const conversation = (body: any) =>
    (body.messages as any[])
      .filter((m) => m.role !== 'system')
      .map((m) => ({ role: m.role, text: typeof m.content === 'string' ? m.content : (m.content ?? []).map((c: any) => c.text ?? '').join('') }));

  it('summarize: a compaction request, a summary reply, session.compacted; the next prompt starts from the summary', async () => {
    const { client, events } = await project();
    const sessionID = await newSession(client);
    scripted.reply({ steps: [{ text: 'I looked at main.ts.' }] });
    await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'Fix the bug in main.ts' }] });

    scripted.reply({ steps: [{ text: 'SUMMARY: the user wants the bug in main.ts fixed; it was inspected.' }], usage: { prompt: 300, completion: 40 } });
    const sent = scripted.prompts.length;
    const { data, response } = await client.session.summarize({ sessionID, providerID: 'scripted', modelID: 'scripted-model' });
    expect(response.status).toBe(200);
    expect(data).toBe(true);

    // The compaction agent saw the whole history and the reference request, with no tools.
    expect(scripted.prompts.length).toBe(sent + 1);
    const request = scripted.prompts.at(-1)!.body;
    expect(request.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('You summarise a coding conversation') });
    expect(request.tools).toBeUndefined();
    const asked = conversation(request);
    expect(asked.slice(0, 3)).toEqual([
      { role: 'user', text: 'Fix the bug in main.ts' },
      { role: 'assistant', text: 'I looked at main.ts.' },
      { role: 'user', text: 'What did we do so far?' },
    ]);
    expect(asked[3].role).toBe('user');
    expect(asked[3].text).toContain(COMPACTION_REQUEST);

    const { data: messages } = await client.session.messages({ sessionID });
    const [compaction, summary] = messages!.slice(-2);
    expectReferenceSchema(compaction.info, 'UserMessage');
    expect(compaction.info).toMatchObject({ role: 'user', agent: 'build', model: { providerID: 'scripted', modelID: 'scripted-model' } });
    expect(compaction.parts).toHaveLength(1);
    expectReferenceSchema(compaction.parts[0], 'CompactionPart');
    expect(compaction.parts[0]).toMatchObject({ type: 'compaction', auto: false, sessionID, messageID: compaction.info.id });
    expectReferenceSchema(summary.info, 'AssistantMessage');
    expect(summary.info).toMatchObject({ role: 'assistant', summary: true, mode: 'compaction', agent: 'compaction', parentID: compaction.info.id, finish: 'stop', tokens: { input: 300, output: 40 } });
    expect(summary.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'SUMMARY: the user wants the bug in main.ts fixed; it was inspected.' });
    const compacted = await events.next<any>((e) => e.type === 'session.compacted' && e.properties.sessionID === sessionID);
    expectReferenceSchema(compacted, 'Event.session.compacted');
    // Without `auto` nothing is added after the summary.
    expect(messages!.at(-1)!.info.id).toBe(summary.info.id);

    scripted.reply({ steps: [{ text: 'Continuing.' }] });
    await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'Go on' }] });
    expect(conversation(scripted.prompts.at(-1)!.body)).toEqual([
      { role: 'user', text: 'What did we do so far?' },
      { role: 'assistant', text: 'SUMMARY: the user wants the bug in main.ts fixed; it was inspected.' },
      { role: 'user', text: 'Go on' },
    ]);
  });

  it('summarize refuses a busy session (400 BusyError) and an unknown model (400) without adding a message; unknown session 404; bad body 400', async () => {
    const { client, events } = await project();
    const sessionID = await newSession(client);
    let release!: () => void;
    scripted.reply({ steps: [{ until: new Promise<void>((r) => (release = r)) }, { text: 'late' }] });
    const running = client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'slow' }] });
    await events.next((e) => e.type === 'message.part.updated' && e.properties.part.sessionID === sessionID && e.properties.part.type === 'step-start');
    const busy = await client.session.summarize({ sessionID, providerID: 'scripted', modelID: 'scripted-model' });
    expect(busy.response.status).toBe(400);
    expect(busy.error).toMatchObject({ name: 'BusyError' });
    release();
    await running;
    const { data: messages } = await client.session.messages({ sessionID });
    expect(messages!.flatMap((m) => m.parts).some((p) => p.type === 'compaction')).toBe(false);

    const unknown = await client.session.summarize({ sessionID, providerID: 'scripted', modelID: 'scripted-modle' });
    expect(unknown.response.status).toBe(400);
    expect(unknown.error).toMatchObject({ name: 'ProviderModelNotFoundError', data: { providerID: 'scripted', modelID: 'scripted-modle', suggestions: ['scripted-model'] } });
    const { data: after } = await client.session.messages({ sessionID });
    expect(after!.flatMap((m) => m.parts).some((p) => p.type === 'compaction')).toBe(false);

    const missing = await client.session.summarize({ sessionID: 'ses_missing', providerID: 'scripted', modelID: 'scripted-model' });
    expect(missing.response.status).toBe(404);
    const bad = await fetch(`${harness.keel.url}/session/${sessionID}/summarize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ providerID: 'scripted' }) });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('modelID');
  });

  it('an aborted summary compacts nothing: no session.compacted, the next prompt still sends the whole history', async () => {
    const { client, events } = await project();
    const sessionID = await newSession(client);
    scripted.reply({ steps: [{ text: 'Noted.' }] });
    await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'Remember 42' }] });

    let release!: () => void;
    scripted.reply({ steps: [{ text: 'SUMMARY so' }, { until: new Promise<void>((r) => (release = r)) }, { text: ' far' }] });
    const pending = client.session.summarize({ sessionID, providerID: 'scripted', modelID: 'scripted-model' });
    await events.next((e) => e.type === 'message.part.updated' && e.properties.part.sessionID === sessionID && e.properties.delta === 'SUMMARY so');
    await client.session.abort({ sessionID });
    release();
    const { data } = await pending;
    expect(data).toBe(true);
    const { data: messages } = await client.session.messages({ sessionID });
    expect(messages!.at(-1)!.info).toMatchObject({ role: 'assistant', summary: true, error: { name: 'MessageAbortedError' } });
    expect(events.ofType('session.compacted').filter((e) => e.properties.sessionID === sessionID)).toEqual([]);

    scripted.reply({ steps: [{ text: 'Still 42.' }] });
    await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'What number?' }] });
    const sentNext = conversation(scripted.prompts.at(-1)!.body);
    expect(sentNext[0]).toEqual({ role: 'user', text: 'Remember 42' });
    expect(sentNext.at(-1)).toEqual({ role: 'user', text: 'What number?' });
  });

  it('auto-compacts when a step uses more tokens than the context limit minus the output reserve, then continues', async () => {
    const { client, events } = await project({ limit: { context: 2000, output: 500 } });
    const sessionID = await newSession(client);
    const sent = scripted.prompts.length;
    scripted.reply(
      { steps: [{ tool: 'bash', args: { command: 'echo checked', description: 'Check' } }], usage: { prompt: 1400, completion: 101 } },
      { steps: [{ text: 'SUMMARY: ran echo.' }] },
      { steps: [{ text: 'All done.' }] },
    );
    const { data } = await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'Check it' }] });
    expect(data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'All done.' });
    expect(scripted.prompts.length).toBe(sent + 3);

    const compactionRequest = conversation(scripted.prompts[sent + 1].body);
    expect(compactionRequest[0]).toEqual({ role: 'user', text: 'Check it' });
    expect(compactionRequest.at(-1)!.text).toContain(COMPACTION_REQUEST);
    expect(conversation(scripted.prompts[sent + 2].body)).toEqual([
      { role: 'user', text: 'What did we do so far?' },
      { role: 'assistant', text: 'SUMMARY: ran echo.' },
      { role: 'user', text: CONTINUE },
    ]);

    const { data: messages } = await client.session.messages({ sessionID });
    expect(messages!.map((m) => [m.info.role, m.parts.filter((p) => !p.type.startsWith('step-')).map((p) => p.type).join(',')])).toEqual([
      ['user', 'text'],
      ['assistant', 'tool'],
      ['user', 'compaction'],
      ['assistant', 'text'],
      ['user', 'text'],
      ['assistant', 'text'],
    ]);
    expect(messages![2].parts[0]).toMatchObject({ type: 'compaction', auto: true });
    expect(messages![3].info).toMatchObject({ summary: true, mode: 'compaction' });
    expect(messages![4].parts[0]).toMatchObject({ type: 'text', text: CONTINUE, synthetic: true });
    await events.next((e) => e.type === 'session.compacted' && e.properties.sessionID === sessionID);
  });

  it('with compaction.auto and compaction.prune false: no compaction on overflow, no pruning', async () => {
    const big = Array.from({ length: 1000 }, (_, i) => `line ${i} `.padEnd(200, 'x')).join('\n');
    const { client, events } = await project({ limit: { context: 2000, output: 500 }, config: { compaction: { auto: false, prune: false } }, files: { 'big.txt': big } });
    const sessionID = await newSession(client);
    const sent = scripted.prompts.length;
    scripted.reply(
      { steps: [{ tool: 'read', args: { filePath: 'big.txt' } }], usage: { prompt: 5000, completion: 10 } },
      { steps: [{ text: 'Read.' }] },
      { steps: [{ text: 'Two.' }] },
      { steps: [{ text: 'Three.' }] },
    );
    for (const text of ['one', 'two', 'three']) await client.session.prompt({ sessionID, parts: [{ type: 'text', text }] });
    expect(scripted.prompts.length).toBe(sent + 4);
    expect(events.ofType('session.compacted').filter((e) => e.properties.sessionID === sessionID)).toEqual([]);
    const { data: messages } = await client.session.messages({ sessionID });
    const read = messages!.flatMap((m) => m.parts).find((p) => p.type === 'tool') as any;
    expect(read.state.status).toBe('completed');
    expect(read.state.time.compacted).toBeUndefined();
  });

  it('prunes tool outputs older than two turns beyond ~40k tokens: marked compacted, sent as a placeholder', async () => {
    const big = Array.from({ length: 1000 }, (_, i) => `line ${i} `.padEnd(200, 'x')).join('\n');
    const { client, events } = await project({ files: { 'big.txt': big } });
    const sessionID = await newSession(client);
    scripted.reply(
      { steps: [{ tool: 'read', args: { filePath: 'big.txt' } }] },
      { steps: [{ text: 'Read.' }] },
      { steps: [{ text: 'Two.' }] },
      { steps: [{ text: 'Three.' }] },
    );
    await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'one' }] });
    await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'two' }] });
    const readPart = (await client.session.messages({ sessionID })).data!.flatMap((m) => m.parts).find((p) => p.type === 'tool') as any;
    expect(readPart.state.time.compacted).toBeUndefined();
    // The second request still carried the whole output.
    expect(JSON.stringify(scripted.prompts.at(-1)!.body)).toContain('line 999 ');

    await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'three' }] });
    const pruned = await events.next<any>((e) => e.type === 'message.part.updated' && e.properties.part.id === readPart.id && e.properties.part.state.time?.compacted);
    expectReferenceSchema(pruned.properties.part, 'ToolPart');
    const { data: messages } = await client.session.messages({ sessionID });
    const stored = messages!.flatMap((m) => m.parts).find((p) => p.id === readPart.id) as any;
    expect(stored.state).toMatchObject({ status: 'completed', time: { compacted: expect.any(Number) } });
    expect(stored.state.output).toContain('line 999 ');

    scripted.reply({ steps: [{ text: 'Four.' }] });
    await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'four' }] });
    const body = JSON.stringify(scripted.prompts.at(-1)!.body);
    expect(body).not.toContain('line 999 ');
    expect(body).toContain('[Old tool result content cleared]');
  });

  it('after a step that writes a file: session.summary, session.diff, GET /session/{id}/diff and UserMessage.summary.diffs', async () => {
    const { client, events, dir } = await project({ files: { 'keep.txt': 'one\ntwo\n' } });
    const sessionID = await newSession(client);
    scripted.reply(
      { steps: [{ tool: 'write', args: { filePath: join(dir, 'hello.txt'), content: 'hello\nworld\n' } }, { tool: 'edit', args: { filePath: join(dir, 'keep.txt'), oldString: 'two', newString: 'three' } }] },
      { steps: [{ text: 'Written.' }] },
    );
    const { data } = await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'Write hello' }] });
    expect(data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'Written.' });
    const expected = [
      { file: 'hello.txt', before: '', after: 'hello\nworld\n', additions: 2, deletions: 0 },
      { file: 'keep.txt', before: 'one\ntwo\n', after: 'one\nthree\n', additions: 1, deletions: 1 },
    ];

    const diffEvent = await events.next<any>((e) => e.type === 'session.diff' && e.properties.sessionID === sessionID && e.properties.diff.length > 0);
    expectReferenceSchema(diffEvent, 'Event.session.diff');
    expect(diffEvent.properties.diff).toEqual(expected);
    const updated = await events.next<any>((e) => e.type === 'session.updated' && e.properties.info.id === sessionID && e.properties.info.summary?.files === 2);
    expect(updated.properties.info.summary).toEqual({ additions: 3, deletions: 1, files: 2 });

    const { data: session } = await client.session.get({ sessionID });
    expectReferenceSchema(session, 'Session');
    expect(session!.summary).toEqual({ additions: 3, deletions: 1, files: 2 });
    const { data: diff } = await client.session.diff({ sessionID });
    for (const entry of diff!) expectReferenceSchema(entry, 'FileDiff');
    expect(diff).toEqual(expected);

    const { data: messages } = await client.session.messages({ sessionID });
    const user = messages![0].info as any;
    expectReferenceSchema(user, 'UserMessage');
    expect(user.summary.diffs).toEqual(expected);
  });
});
