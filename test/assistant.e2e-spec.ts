import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectReferenceSchema } from './support/reference-schema';
import { ScriptedProvider } from './support/scripted-provider';
import { SseClient } from './support/sse';
import { AssistantHarness, startAssistantHarness } from './support/assistant-harness';
import { TestKeel } from './support/keel';

type Client = ReturnType<typeof createOpencodeClient>;

describe('assistant: prompt loop against a scripted OpenAI-compatible server', () => {
  let keel: TestKeel;
  let scripted: ScriptedProvider;
  let dir: string;
  let client: Client;
  let events: SseClient;

  let harness: AssistantHarness;

  beforeAll(async () => {
    harness = await startAssistantHarness({ prefix: 'keel-assistant-', env: { KEEL_PROMPT_MAX_RETRIES: '2' } });
    ({ keel, scripted, dir, client, events } = harness);
  });

  afterAll(() => harness.close());

  async function newSession(): Promise<string> {
    const { data } = await client.session.create({});
    return data!.id;
  }

  const partEvents = (sessionID: string) => events.ofType('message.part.updated').filter((e) => e.properties.part.sessionID === sessionID);
  const idle = (sessionID: string) => events.next((e) => e.type === 'session.idle' && e.properties.sessionID === sessionID);

  it('streams a text reply: parts, deltas in order, tokens, cost, title, idle', async () => {
    const sessionID = await newSession();
    scripted.reply({ steps: [{ reasoning: 'Thinking.' }, { text: 'Hel' }, { text: 'lo ' }, { text: 'world  ' }], usage: { prompt: 1000, completion: 500 } });
    const { data, response } = await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'Say hello' }] });
    expect(response.status).toBe(200);
    expectReferenceSchema(data!.info, 'AssistantMessage');
    for (const part of data!.parts) expectReferenceSchema(part, 'Part');
    const info = data!.info;
    expect(info).toMatchObject({
      role: 'assistant',
      providerID: 'scripted',
      modelID: 'scripted-model',
      mode: 'build',
      agent: 'build',
      path: { cwd: dir, root: expect.any(String) },
      finish: 'stop',
      tokens: { input: 1000, output: 500, reasoning: 0, cache: { read: 0, write: 0 } },
      time: { created: expect.any(Number), completed: expect.any(Number) },
    });
    expect(info.cost).toBeCloseTo((1000 * 1 + 500 * 2) / 1e6, 10);
    expect(data!.parts.map((p) => p.type)).toEqual(['step-start', 'reasoning', 'text', 'step-finish']);
    expect(data!.parts[2]).toMatchObject({ type: 'text', text: 'Hello world', time: { start: expect.any(Number), end: expect.any(Number) } });
    expect(data!.parts[1]).toMatchObject({ type: 'reasoning', text: 'Thinking.' });
    expect(data!.parts[3]).toMatchObject({ reason: 'stop', tokens: { input: 1000, output: 500 } });
    // The session adds up what its replies cost (opencode 1.18's `cost` and `tokens`).
    const { data: session } = await client.session.get({ sessionID });
    expect(session).toMatchObject({ tokens: { input: 1000, output: 500, reasoning: 0, cache: { read: 0, write: 0 } } });
    expect((session as unknown as { cost: number }).cost).toBeCloseTo(info.cost, 10);

    await idle(sessionID);
    const deltas = partEvents(sessionID).filter((e) => e.properties.delta !== undefined && e.properties.part.type === 'text');
    expect(deltas.map((e) => e.properties.delta)).toEqual(['Hel', 'lo ', 'world  ']);
    expect(deltas.map((e) => e.properties.part.text)).toEqual(['Hel', 'Hello ', 'Hello world  ']);
    const statuses = events.ofType('session.status').filter((e) => e.properties.sessionID === sessionID).map((e) => e.properties.status.type);
    expect(statuses[0]).toBe('busy');
    expect(statuses.at(-1)).toBe('idle');

    const request = scripted.prompts.at(-1)!.body;
    expect(request.stream).toBe(true);
    expect(request.messages[0].role).toBe('system');
    expect(request.messages[0].content).toContain(`Working directory: ${dir}`);
    expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'Say hello' });
    expect(request.tools.map((t: any) => t.function.name)).toEqual(expect.arrayContaining(['bash', 'read', 'write', 'edit', 'todowrite']));
    expect(request.tools.map((t: any) => t.function.name)).not.toContain('invalid');

    const titled = await events.next((e) => e.type === 'session.updated' && e.properties.info.id === sessionID && e.properties.info.title === 'Scripted title');
    expect(titled).toBeDefined();
    const { data: messages } = await client.session.messages({ sessionID });
    expect(messages!.map((m) => m.info.role)).toEqual(['user', 'assistant']);
  });

  it('runs a multi-step turn with bash, write, edit, read and todowrite, changing files on disk', async () => {
    const sessionID = await newSession();
    scripted.reply(
      { steps: [{ tool: 'bash', args: { command: 'echo from-bash > made.txt && cat made.txt', description: 'Make a file' } }] },
      { steps: [{ tool: 'write', args: { filePath: 'src/app.ts', content: 'export const answer = 41;\n' } }] },
      { steps: [{ tool: 'edit', args: { filePath: 'src/app.ts', oldString: '41', newString: '42' } }] },
      { steps: [{ tool: 'read', args: { filePath: 'src/app.ts' } }] },
      { steps: [{ tool: 'todowrite', args: { todos: [{ id: '1', content: 'ship it', status: 'completed', priority: 'high' }] } }] },
      { steps: [{ text: 'All done.' }] },
    );
    const { data } = await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'Build the thing' }] });
    expect(data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'All done.' });
    expect(readFileSync(join(dir, 'made.txt'), 'utf8')).toBe('from-bash\n');
    expect(readFileSync(join(dir, 'src/app.ts'), 'utf8')).toBe('export const answer = 42;\n');

    const { data: messages } = await client.session.messages({ sessionID });
    expect(messages!.map((m) => m.info.role)).toEqual(['user', 'assistant', 'assistant', 'assistant', 'assistant', 'assistant', 'assistant']);
    const tools = messages!.flatMap((m) => m.parts).filter((p) => p.type === 'tool') as any[];
    expect(tools.map((t) => [t.tool, t.state.status])).toEqual([
      ['bash', 'completed'],
      ['write', 'completed'],
      ['edit', 'completed'],
      ['read', 'completed'],
      ['todowrite', 'completed'],
    ]);
    for (const t of tools) expectReferenceSchema(t, 'ToolPart');
    expect(tools[0].state).toMatchObject({ output: 'from-bash\n', title: 'Make a file', metadata: { exit: 0 } });
    expect(tools[3].state.output).toContain('00001| export const answer = 42;');
    expect(messages![1].info).toMatchObject({ finish: 'tool-calls' });

    // The model saw each tool result in the next request.
    const fourth = scripted.prompts.at(-2)!.body.messages;
    const toolResults = fourth.filter((m: any) => m.role === 'tool');
    expect(toolResults.length).toBe(4);
    expect(toolResults[0].content).toContain('from-bash');

    const { data: todos } = await client.session.todo({ sessionID });
    expect(todos).toEqual([{ id: '1', content: 'ship it', status: 'completed', priority: 'high' }]);
    const states = partEvents(sessionID).filter((e) => e.properties.part.tool === 'bash').map((e) => e.properties.part.state.status);
    expect(states[0]).toBe('pending');
    expect(states).toContain('running');
    expect(states.at(-1)).toBe('completed');
    expect(events.ofType('file.edited').map((e) => e.properties.file)).toContain(join(dir, 'src/app.ts'));
    expect(existsSync(join(dir, 'made.txt'))).toBe(true);
  });

  it('routes unknown tools to invalid and reports bad arguments to the model', async () => {
    const sessionID = await newSession();
    scripted.reply({ steps: [{ tool: 'no_such_tool', args: { x: 1 } }] }, { steps: [{ text: 'ok' }] });
    await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'try' }] });
    const { data: messages } = await client.session.messages({ sessionID });
    const tool = messages!.flatMap((m) => m.parts).find((p) => p.type === 'tool') as any;
    expect(tool.tool).toBe('invalid');
    expect(tool.state.status).toBe('completed');
    expect(tool.state.output).toContain('The arguments provided to the tool are invalid');
  });

  it('retries a rate-limited call honouring retry-after-ms, then succeeds', async () => {
    const sessionID = await newSession();
    scripted.reply({ error: { status: 429, message: 'rate limit exceeded', headers: { 'retry-after-ms': '50' } } }, { steps: [{ text: 'after retry' }] });
    const { data } = await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'go' }] });
    expect(data!.info.error).toBeUndefined();
    expect(data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'after retry' });
    const retry = events.ofType('session.status').find((e) => e.properties.sessionID === sessionID && e.properties.status.type === 'retry');
    expect(retry.properties.status).toMatchObject({ type: 'retry', attempt: 1, message: 'Rate Limited', next: expect.any(Number) });
  });

  it('ends with assistant.error and session.error on a non-retryable error', async () => {
    const sessionID = await newSession();
    scripted.reply({ error: { status: 400, message: 'bad request from provider', type: 'invalid_request_error' } });
    const { data, response } = await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'go' }] });
    expect(response.status).toBe(200);
    expectReferenceSchema(data!.info, 'AssistantMessage');
    expect(data!.info.error).toMatchObject({ name: 'APIError', data: { statusCode: 400, isRetryable: false } });
    expect(String((data!.info.error as any).data.message)).toContain('bad request from provider');
    const error = await events.next<any>((e) => e.type === 'session.error' && e.properties.sessionID === sessionID);
    expect(error.properties.error.name).toBe('APIError');
    await idle(sessionID);
  });

  it('prompt_async answers 204 at once and the turn reaches idle through events', async () => {
    const sessionID = await newSession();
    scripted.reply({ steps: [{ text: 'async ' }, { text: 'reply' }] });
    const response = await fetch(`${keel.url}/session/${sessionID}/prompt_async?directory=${encodeURIComponent(dir)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ parts: [{ type: 'text', text: 'async please' }] }),
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    await idle(sessionID);
    const done = partEvents(sessionID).filter((e) => e.properties.part.type === 'text').at(-1);
    expect(done.properties.part.text).toBe('async reply');
    const unknown = await fetch(`${keel.url}/session/ses_unknown/prompt_async?directory=${encodeURIComponent(dir)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ parts: [{ type: 'text', text: 'x' }] }),
    });
    expect(unknown.status).toBe(404);
  });

  it('a prompt to a busy session stores its message and joins the running loop', async () => {
    const sessionID = await newSession();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    scripted.reply({ steps: [{ text: 'first ' }, { until: gate }, { text: 'answer' }] }, { steps: [{ text: 'second answer' }] });
    const first = client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'one' }] });
    await events.next((e) => e.type === 'message.part.updated' && e.properties.part.sessionID === sessionID && e.properties.delta === 'first ');
    const second = client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'two' }] });
    await events.next((e) => e.type === 'message.part.updated' && e.properties.part.sessionID === sessionID && e.properties.part.text === 'two');
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(a.data!.info.id).toBe(b.data!.info.id);
    expect(a.data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'second answer' });
    const { data: messages } = await client.session.messages({ sessionID });
    expect(messages!.map((m) => m.info.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages![2].info.id < messages![3].info.id).toBe(true);
    const lastRequest = scripted.prompts.at(-1)!.body.messages.filter((m: any) => m.role !== 'system');
    expect(lastRequest.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'one'],
      ['assistant', 'first answer'],
      ['user', 'two'],
    ]);
  });

  it('aborts a long bash: the process dies, the tool part errors, the message is MessageAbortedError, status idle', async () => {
    const sessionID = await newSession();
    const marker = join(dir, 'long.pid');
    scripted.reply({ steps: [{ tool: 'bash', args: { command: `echo $$ > ${marker}; sleep 30`, description: 'Wait' } }] });
    const pending = client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'wait' }] });
    await events.next((e) => e.type === 'message.part.updated' && e.properties.part.sessionID === sessionID && e.properties.part.state?.status === 'running');
    for (let i = 0; i < 100 && !(existsSync(marker) && readFileSync(marker, 'utf8').trim()); i++) await new Promise((r) => setTimeout(r, 20));
    const pid = Number(readFileSync(marker, 'utf8'));
    const { data: aborted } = await client.session.abort({ sessionID });
    expect(aborted).toBe(true);
    const { data } = await pending;
    expect(data!.info.error).toMatchObject({ name: 'MessageAbortedError' });
    const tool = data!.parts.find((p) => p.type === 'tool') as any;
    expect(tool.state).toMatchObject({ status: 'error', error: 'Tool execution aborted' });
    await idle(sessionID);
    for (let i = 0; i < 60 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(processAlive(pid)).toBe(false);
    const { data: status } = await client.session.status();
    expect(status![sessionID]).toBeUndefined();
    expect((await client.session.abort({ sessionID: 'ses_nothing_running' })).data).toBe(true);
  });
});

function processAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
