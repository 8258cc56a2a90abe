import { createOpencodeClient } from '@opencode-ai/sdk-1.19.6/v2/client';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { AssistantHarness, startAssistantHarness } from './support/assistant-harness';

type Client = ReturnType<typeof createOpencodeClient>;
type StreamedEvent = { type: string; properties: any };

/**
 * The newest `@opencode-ai/sdk` (1.19.6, the version `npm install @opencode-ai/sdk` gives today), used as
 * a program built on it uses it: its `/v2` client, its own SSE reader, its error wrapping. The other
 * session suites drive Keel through the seed's 1.0.223 client, and the TUI suite through 1.18.33's.
 */
describe('the newest @opencode-ai/sdk (1.19.6) drives Keel', () => {
  let harness: AssistantHarness;
  let client: Client;
  let dir: string;
  /** Everything the SDK's `event.subscribe()` stream has given so far. */
  const streamed: StreamedEvent[] = [];
  const stopStream = new AbortController();
  let streamEnded: Promise<void>;

  beforeAll(async () => {
    harness = await startAssistantHarness({
      prefix: 'keel-sdk-current-',
      config: { permission: { bash: 'ask', edit: 'ask' } },
      files: { 'README.md': '# Notes\n' },
    });
    dir = harness.dir;
    client = createOpencodeClient({ baseUrl: harness.keel.url, directory: dir });
    const { stream } = await client.event.subscribe({}, { signal: stopStream.signal });
    streamEnded = (async () => {
      try {
        for await (const event of stream) streamed.push(event);
      } catch {
        // aborted at the end of the suite
      }
    })();
  });

  afterAll(async () => {
    stopStream.abort();
    await streamEnded;
    await harness.close();
  });

  /** The first streamed event (from index `from` on) that `match` accepts, waiting for it up to 15 s. */
  async function streamedEvent(match: (event: StreamedEvent) => boolean, from = 0): Promise<StreamedEvent> {
    const until = Date.now() + 15_000;
    for (;;) {
      const found = streamed.slice(from).find(match);
      if (found) return found;
      if (Date.now() > until) throw new Error(`no such event; streamed: ${streamed.map((e) => e.type).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const idle = (sessionID: string, from = 0) =>
    streamedEvent((e) => e.type === 'session.idle' && e.properties.sessionID === sessionID, from);

  it('reads health, the project, the path, the providers and the agents', async () => {
    const { data: health } = await client.global.health({ throwOnError: true });
    expect(health).toMatchObject({ healthy: true, version: expect.any(String) });
    const { data: path } = await client.path.get({}, { throwOnError: true });
    expect(path).toMatchObject({ directory: dir });
    const { data: project } = await client.project.current({}, { throwOnError: true });
    expect(project.id).toEqual(expect.any(String));
    const { data: providers } = await client.config.providers({}, { throwOnError: true });
    expect(providers.providers.map((p) => p.id)).toContain('scripted');
    const { data: agents } = await client.app.agents({}, { throwOnError: true });
    expect(agents.map((a) => a.name)).toEqual(expect.arrayContaining(['build', 'plan']));
  });

  it('creates, lists, renames and deletes a session, each change on its event stream', async () => {
    const from = streamed.length;
    const { data: created } = await client.session.create({ title: 'From the newest SDK' }, { throwOnError: true });
    expect(created).toMatchObject({ id: expect.stringMatching(/^ses_/), title: 'From the newest SDK', directory: dir });
    const sessionID = created.id;
    await streamedEvent((e) => e.type === 'session.created' && e.properties.info.id === sessionID, from);

    const { data: listed } = await client.session.list({}, { throwOnError: true });
    expect(listed.map((s) => s.id)).toContain(sessionID);
    const { data: renamed } = await client.session.update({ sessionID, title: 'Renamed' }, { throwOnError: true });
    expect(renamed.title).toBe('Renamed');
    await streamedEvent((e) => e.type === 'session.updated' && e.properties.info.title === 'Renamed', from);

    const { data: deleted } = await client.session.delete({ sessionID }, { throwOnError: true });
    expect(deleted).toBe(true);
    await streamedEvent((e) => e.type === 'session.deleted' && e.properties.info.id === sessionID, from);
    const { data: after } = await client.session.list({}, { throwOnError: true });
    expect(after.map((s) => s.id)).not.toContain(sessionID);
  });

  it('answers a prompt: the reply streams as deltas, then comes back whole with its messages', async () => {
    const { data: session } = await client.session.create({}, { throwOnError: true });
    const from = streamed.length;
    harness.scripted.reply({ steps: [{ text: 'Hel' }, { text: 'lo from ' }, { text: 'Keel' }] });
    const { data: reply } = await client.session.prompt(
      { sessionID: session.id, parts: [{ type: 'text', text: 'Say hello' }] },
      { throwOnError: true },
    );
    expect(reply.info).toMatchObject({ role: 'assistant', providerID: 'scripted', modelID: 'scripted-model', finish: 'stop' });
    expect(reply.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'Hello from Keel' });

    await idle(session.id, from);
    const deltas = streamed
      .slice(from)
      .filter((e) => e.type === 'message.part.delta' && e.properties.sessionID === session.id)
      .map((e) => e.properties.delta);
    expect(deltas.join('')).toBe('Hello from Keel');
    const { data: messages } = await client.session.messages({ sessionID: session.id }, { throwOnError: true });
    expect(messages.map((m) => m.info.role)).toEqual(['user', 'assistant']);
    expect(messages[0].parts).toEqual([expect.objectContaining({ type: 'text', text: 'Say hello' })]);
    // As opencode 1.18.33: the session keeps what it was last prompted with, for a client reopening it.
    const { data: reopened } = await client.session.get({ sessionID: session.id }, { throwOnError: true });
    expect(reopened).toMatchObject({ agent: 'build', model: { id: 'scripted-model', providerID: 'scripted', variant: 'default' } });
  });

  it('asks before a command runs; permission.reply lets it run and the turn goes on', async () => {
    const { data: session } = await client.session.create({}, { throwOnError: true });
    const from = streamed.length;
    harness.scripted.reply(
      { steps: [{ tool: 'bash', args: { command: 'echo more >> README.md', description: 'Add a line' } }] },
      { steps: [{ text: 'Added.' }] },
    );
    const { response } = await client.session.promptAsync(
      { sessionID: session.id, parts: [{ type: 'text', text: 'Add a line to the readme' }] },
      { throwOnError: true },
    );
    expect(response.status).toBe(204);

    const asked = await streamedEvent((e) => e.type === 'permission.asked' && e.properties.sessionID === session.id, from);
    // As opencode 1.18.33 sends it: the command as written, what "always" would approve, and the tool call.
    expect(asked.properties).toMatchObject({
      permission: 'bash',
      patterns: ['echo more >> README.md'],
      always: ['echo *'],
      metadata: { command: 'echo more >> README.md' },
      tool: { callID: expect.any(String) },
    });
    const { data: pending } = await client.permission.list({}, { throwOnError: true });
    expect(pending.map((p) => p.id)).toContain(asked.properties.id);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe('# Notes\n');

    await client.permission.reply({ requestID: asked.properties.id, reply: 'once' }, { throwOnError: true });
    await idle(session.id, from);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe('# Notes\nmore\n');
    const { data: messages } = await client.session.messages({ sessionID: session.id }, { throwOnError: true });
    const parts = messages.flatMap((m) => m.parts);
    expect(parts.find((p) => p.type === 'tool')).toMatchObject({
      tool: 'bash',
      callID: asked.properties.tool.callID,
      state: { status: 'completed', input: { command: 'echo more >> README.md' } },
    });
    expect(parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text)).toContain('Added.');
  });

  it('asks before a file is written, naming it from the worktree; "always" lets the next edit through', async () => {
    const { data: session } = await client.session.create({}, { throwOnError: true });
    const { data: project } = await client.project.current({}, { throwOnError: true });
    const from = streamed.length;
    harness.scripted.reply(
      { steps: [{ tool: 'write', args: { filePath: 'notes.txt', content: 'one' } }] },
      { steps: [{ tool: 'edit', args: { filePath: 'notes.txt', oldString: 'one', newString: 'two' } }] },
      { steps: [{ text: 'Edited.' }] },
    );
    await client.session.promptAsync({ sessionID: session.id, parts: [{ type: 'text', text: 'Write notes' }] }, { throwOnError: true });
    const asked = await streamedEvent((e) => e.type === 'permission.asked' && e.properties.sessionID === session.id, from);
    expect(asked.properties).toMatchObject({
      permission: 'edit',
      patterns: [relative(project.worktree, join(dir, 'notes.txt'))],
      always: ['*'],
      // The diff the dialog shows, as the reference gives it.
      metadata: { filepath: join(dir, 'notes.txt'), diff: expect.stringMatching(/^Index: .*notes\.txt\n[\s\S]*@@ -0,0 \+1,1 @@\n\+one\n/) },
    });
    await client.permission.reply({ requestID: asked.properties.id, reply: 'always' }, { throwOnError: true });
    await idle(session.id, from);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('two');
    expect(streamed.slice(from).filter((e) => e.type === 'permission.asked')).toHaveLength(1);
    // The edit's part carries its diff for the client to draw.
    const { data: messages } = await client.session.messages({ sessionID: session.id }, { throwOnError: true });
    const edited = messages.flatMap((m) => m.parts).find((p) => p.type === 'tool' && p.tool === 'edit');
    expect(edited).toMatchObject({
      state: { status: 'completed', metadata: { diff: expect.stringContaining('-one'), filediff: { file: join(dir, 'notes.txt'), additions: 1, deletions: 1 } } },
    });
  });

  it('reads and finds files in the directory', async () => {
    const { data: file } = await client.file.read({ path: 'README.md' }, { throwOnError: true });
    expect(file).toMatchObject({ type: 'text', content: expect.stringContaining('# Notes') });
    const { data: found } = await client.find.files({ query: 'READ' }, { throwOnError: true });
    expect(found).toContain('README.md');
  });

  it('a refused request reaches the program as an Error with Keel’s message (the SDK’s throwOnError)', async () => {
    const missing = 'ses_0000000000000000000000000';
    const notFound = await client.session.get({ sessionID: missing }, { throwOnError: true }).catch((error: unknown) => error);
    expect(notFound).toBeInstanceOf(Error);
    expect((notFound as Error).message).toContain(missing);
    expect((notFound as Error & { cause: { status: number } }).cause.status).toBe(404);

    const outside = await client.file.read({ path: '../../etc/passwd' }, { throwOnError: true }).catch((error: unknown) => error);
    expect(outside).toBeInstanceOf(Error);
    expect((outside as Error).message).not.toMatch(/^opencode server|\[object Object\]/);
    expect([400, 403]).toContain((outside as Error & { cause: { status: number } }).cause.status);
  });
});
