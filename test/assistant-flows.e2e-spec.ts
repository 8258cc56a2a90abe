import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ScriptedProvider } from './support/scripted-provider';
import { SseClient } from './support/sse';
import { AssistantHarness, startAssistantHarness } from './support/assistant-harness';
import { tempDir, TestKeel } from './support/keel';

type Client = ReturnType<typeof createOpencodeClient>;
const REJECTED = 'The user rejected permission to use this specific tool call.';

describe('assistant: permissions, commands, shell, attachments, no provider', () => {
  let keel: TestKeel;
  let scripted: ScriptedProvider;
  let dir: string;
  let bare: string;
  let client: Client;
  let events: SseClient;

  let harness: AssistantHarness;

  beforeAll(async () => {
    bare = tempDir('keel-assistant-bare-');
    harness = await startAssistantHarness({
      prefix: 'keel-assistant-flows-',
      config: {
        permission: { edit: 'ask', bash: { '*': 'allow', 'touch *': 'ask', 'rm *': 'deny' } },
        command: { greet: { template: 'Say hi to $1 and $2. All: $ARGUMENTS. Shell: !`echo substituted`', description: 'Greets' } },
      },
      files: { 'AGENTS.md': 'Always answer in haiku.' },
    });
    ({ keel, scripted, dir, client, events } = harness);
  });

  afterAll(async () => {
    await harness.close();
    rmSync(bare, { recursive: true, force: true });
  });

  async function newSession(on: Client = client): Promise<string> {
    const { data } = await on.session.create({});
    return data!.id;
  }

  const asked = (sessionID: string, after = 0) =>
    events.next<any>((e) => e.type === 'permission.updated' && e.properties.sessionID === sessionID && events.frames.indexOf(e) >= after);

  it('asks before an edit; "once" lets it run and the turn continues', async () => {
    const sessionID = await newSession();
    scripted.reply({ steps: [{ tool: 'write', args: { filePath: 'once.txt', content: 'approved' } }] }, { steps: [{ text: 'written' }] });
    const pending = client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'write it' }] });
    const permission = await asked(sessionID);
    expect(permission.properties).toMatchObject({ type: 'edit', sessionID, callID: expect.any(String), title: 'Create once.txt' });
    expect(existsSync(join(dir, 'once.txt'))).toBe(false);
    const { data: listed } = await client.permission.list();
    expect(listed!.map((p) => p.id)).toContain(permission.properties.id);
    await client.permission.respond({ sessionID, permissionID: permission.properties.id, response: 'once' });
    const { data } = await pending;
    expect(data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'written' });
    expect(readFileSync(join(dir, 'once.txt'), 'utf8')).toBe('approved');
  });

  it('"always" approves the bash pattern for the rest of the session', async () => {
    const sessionID = await newSession();
    scripted.reply({ steps: [{ tool: 'bash', args: { command: 'touch a.txt', description: 'Touch a' } }] }, { steps: [{ text: 'a done' }] });
    const first = client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'touch a' }] });
    const permission = await asked(sessionID);
    expect(permission.properties).toMatchObject({ type: 'bash', pattern: 'touch *' });
    await client.permission.respond({ sessionID, permissionID: permission.properties.id, response: 'always' });
    await first;
    expect(existsSync(join(dir, 'a.txt'))).toBe(true);

    const before = events.ofType('permission.updated').length;
    scripted.reply({ steps: [{ tool: 'bash', args: { command: 'touch b.txt', description: 'Touch b' } }] }, { steps: [{ text: 'b done' }] });
    const { data } = await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'touch b' }] });
    expect(data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'b done' });
    expect(existsSync(join(dir, 'b.txt'))).toBe(true);
    expect(events.ofType('permission.updated').length).toBe(before);
  });

  it('"reject" fails the tool with the reference message and ends the turn; deny rules fail without asking', async () => {
    const sessionID = await newSession();
    scripted.reply({ steps: [{ tool: 'write', args: { filePath: 'never.txt', content: 'x' } }] });
    const requestsBefore = scripted.prompts.length;
    const pending = client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'write' }] });
    const permission = await asked(sessionID);
    await client.permission.respond({ sessionID, permissionID: permission.properties.id, response: 'reject' });
    const { data } = await pending;
    const tool = data!.parts.find((p) => p.type === 'tool') as any;
    expect(tool.state.status).toBe('error');
    expect(tool.state.error).toContain(REJECTED);
    expect(existsSync(join(dir, 'never.txt'))).toBe(false);
    expect(scripted.prompts.length).toBe(requestsBefore + 1);

    const denied = await newSession();
    scripted.reply({ steps: [{ tool: 'bash', args: { command: 'rm -rf src', description: 'Remove' } }] }, { steps: [{ text: 'could not' }] });
    const { data: deniedReply } = await client.session.prompt({ sessionID: denied, parts: [{ type: 'text', text: 'remove' }] });
    expect(deniedReply!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'could not' });
    const { data: messages } = await client.session.messages({ sessionID: denied });
    const deniedTool = messages!.flatMap((m) => m.parts).find((p) => p.type === 'tool') as any;
    expect(deniedTool.state.error).toContain('The user has specifically restricted access to this command');
  });

  it('sends the system prompt with AGENTS.md, honours per-prompt tool switches and reads attached files', async () => {
    const sessionID = await newSession();
    writeFileSync(join(dir, 'notes.txt'), 'line one\nline two\n');
    mkdirSync(join(dir, 'folder'), { recursive: true });
    writeFileSync(join(dir, 'folder', 'inside.md'), '# inside');
    scripted.reply({ steps: [{ text: 'seen' }] });
    await client.session.prompt({
      sessionID,
      tools: { bash: false, 'todo*': false },
      system: 'Extra system words.',
      parts: [
        { type: 'text', text: 'look at these' },
        { type: 'file', mime: 'text/plain', url: pathToFileURL(join(dir, 'notes.txt')).href, filename: 'notes.txt' },
        { type: 'file', mime: 'application/x-directory', url: pathToFileURL(join(dir, 'folder')).href, filename: 'folder' },
      ],
    });
    const body = scripted.prompts.at(-1)!.body;
    const system = body.messages.filter((m: any) => m.role === 'system').map((m: any) => m.content).join('\n');
    expect(system).toContain('Always answer in haiku.');
    expect(system).toContain('Extra system words.');
    const names = body.tools.map((t: any) => t.function.name);
    expect(names).not.toContain('bash');
    expect(names).not.toContain('todowrite');
    expect(names).toContain('read');
    const user = JSON.stringify(body.messages.filter((m: any) => m.role === 'user'));
    expect(user).toContain('00001| line one');
    expect(user).toContain('inside.md');
    const { data: messages } = await client.session.messages({ sessionID });
    expect(messages![0].parts.map((p) => p.type)).toEqual(['text', 'text', 'text', 'file', 'text', 'text', 'file']);
  });

  it('runs a command with positional arguments, $ARGUMENTS and shell substitution, then publishes command.executed', async () => {
    const sessionID = await newSession();
    scripted.reply({ steps: [{ text: 'hi both' }] });
    const { data } = await client.session.command({ sessionID, command: 'greet', arguments: 'Ann "Bob Lee"' });
    expect(data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'hi both' });
    const user = scripted.prompts.at(-1)!.body.messages.filter((m: any) => m.role === 'user').at(-1);
    expect(user.content).toBe('Say hi to Ann and Bob Lee. All: Ann "Bob Lee". Shell: substituted');
    const executed = await events.next<any>((e) => e.type === 'command.executed' && e.properties.sessionID === sessionID);
    expect(executed.properties).toEqual({ name: 'greet', sessionID, arguments: 'Ann "Bob Lee"', messageID: data!.info.id });
    const unknown = await client.session.command({ sessionID, command: 'nope', arguments: '' });
    expect(unknown.response.status).toBe(404);
  });

  it('runs a user shell command with streamed output; a busy session answers 400 BusyError', async () => {
    const sessionID = await newSession();
    const { data, response } = await client.session.shell({ sessionID, agent: 'build', command: 'echo one; sleep 0.3; echo two' });
    expect(response.status).toBe(200);
    const result = data as any;
    expect(result.info).toMatchObject({ role: 'assistant', time: { completed: expect.any(Number) } });
    expect(result.parts[0]).toMatchObject({ type: 'tool', tool: 'bash', state: { status: 'completed', output: 'one\ntwo\n', input: { command: 'echo one; sleep 0.3; echo two' } } });
    const streamed = events
      .ofType('message.part.updated')
      .filter((e) => e.properties.part.id === result.parts[0].id && e.properties.part.state.status === 'running')
      .map((e) => e.properties.part.state.metadata?.output);
    expect(streamed).toContain('one\n');
    const { data: messages } = await client.session.messages({ sessionID });
    expect(messages![0].parts[0]).toMatchObject({ type: 'text', synthetic: true, text: 'The following tool was executed by the user' });

    let release!: () => void;
    scripted.reply({ steps: [{ until: new Promise<void>((r) => (release = r)) }, { text: 'late' }] });
    const mark = events.frames.length;
    const running = client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'slow' }] });
    await events.next((e) => e.type === 'message.part.updated' && e.properties.part.sessionID === sessionID && e.properties.part.type === 'step-start' && events.frames.indexOf(e) >= mark);
    const busy = await client.session.shell({ sessionID, agent: 'build', command: 'echo no' });
    expect(busy.response.status).toBe(400);
    expect(busy.error).toMatchObject({ name: 'BusyError' });
    release();
    await running;
  });

  it('snapshots the worktree at each step of a git project and writes a patch part for changed files', async () => {
    const repo = tempDir('keel-assistant-git-');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    writeFileSync(join(repo, 'opencode.json'), JSON.stringify(scripted.config()));
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'root');
    const inRepo = createOpencodeClient({ baseUrl: keel.url, directory: repo });
    const sessionID = await newSession(inRepo);
    scripted.reply({ steps: [{ tool: 'write', args: { filePath: 'made.txt', content: 'new' } }] }, { steps: [{ text: 'made' }] });
    // edit asks in this directory's config only when configured; this repo has the default (allow).
    await inRepo.session.prompt({ sessionID, parts: [{ type: 'text', text: 'make a file' }] });
    const { data: messages } = await inRepo.session.messages({ sessionID });
    const parts = messages![1].parts as any[];
    expect(parts.map((p) => p.type)).toEqual(['step-start', 'tool', 'step-finish', 'patch']);
    expect(parts[0].snapshot).toMatch(/^[0-9a-f]{40}$/);
    expect(parts[2].snapshot).toMatch(/^[0-9a-f]{40}$/);
    expect(parts[3]).toMatchObject({ type: 'patch', hash: parts[0].snapshot, files: [join(repo, 'made.txt')] });
    rmSync(repo, { recursive: true, force: true });
  });

  it('with no provider configured the user message is stored and the assistant explains what to configure', async () => {
    const other = createOpencodeClient({ baseUrl: keel.url, directory: bare });
    const sessionID = await newSession(other);
    const bareEvents = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(bare)}`);
    const { data, response } = await other.session.prompt({ sessionID, parts: [{ type: 'text', text: 'anyone there?' }] });
    expect(response.status).toBe(200);
    expect(data!.info.role).toBe('assistant');
    const error = data!.info.error as any;
    expect(error.name).toBe('UnknownError');
    expect(error.data.message).toMatch(/provider/i);
    const { data: messages } = await other.session.messages({ sessionID });
    expect(messages!.map((m) => m.info.role)).toEqual(['user', 'assistant']);
    expect(messages![0].parts[0]).toMatchObject({ type: 'text', text: 'anyone there?' });
    await bareEvents.next((e) => e.type === 'session.error' && e.properties.sessionID === sessionID);
    await bareEvents.next((e) => e.type === 'session.idle' && e.properties.sessionID === sessionID);
    bareEvents.close();
  });
});
