import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ascendingId } from '../src/common/ids';
import { AssistantHarness, startAssistantHarness } from './support/assistant-harness';
import { tempDir } from './support/keel';
import { SseClient } from './support/sse';

type Client = ReturnType<typeof createOpencodeClient>;
const REJECTED = 'The user rejected permission to use this specific tool call.';
const SIX_MB = 6 * 1024 * 1024;

const PAGE = `<!doctype html><html><head><title>Ignored head</title><style>p{color:red}</style></head>
<body><h1>Release notes</h1><script>alert("nope")</script><p>Keel  fetched   this page.</p>
<ul><li>first item</li><li>second item</li></ul><p>See <a href="https://example.com/more">more</a>.</p><noscript>no js</noscript></body></html>`;

/** A loopback web server for the webfetch tool: a page, an endless stall and a body past the size cap. */
async function startWebServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url === '/page') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    else if (req.url === '/stall') {
      // Headers and the start of a body, then nothing: only the tool's time cap ends the read.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><body><p>start');
    } else if (req.url === '/declared-huge') {
      // A declared length past the cap is refused before reading (the body never completes here).
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(SIX_MB) });
      res.write('a'.repeat(1024));
    } else if (req.url === '/huge') {
      // No content-length: the cap must hold while streaming, not only on the header.
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(256 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < SIX_MB) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => undefined);
      pump();
    } else res.writeHead(404).end('missing');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('assistant tools through the prompt loop: webfetch, task, doom loop, init', () => {
  let harness: AssistantHarness;
  let permissive: AssistantHarness;
  let web: { url: string; close: () => Promise<void> };

  beforeAll(async () => {
    web = await startWebServer();
    harness = await startAssistantHarness({ prefix: 'keel-tools-loop-' });
    permissive = await startAssistantHarness({
      prefix: 'keel-tools-loop-private-',
      env: { KEEL_ALLOW_PRIVATE_FETCH: 'true' },
      config: { agent: { careful: { mode: 'primary', permission: { webfetch: 'ask' } } } },
    });
  });

  afterAll(async () => {
    await permissive?.close();
    await harness?.close();
    await web?.close();
  });

  async function newSession(client: Client): Promise<string> {
    const { data } = await client.session.create({});
    return data!.id;
  }

  async function toolParts(client: Client, sessionID: string): Promise<any[]> {
    const { data } = await client.session.messages({ sessionID });
    return data!.flatMap((m) => m.parts).filter((p) => p.type === 'tool');
  }

  /** What the model was told about a tool call, as the next request sends it. */
  const toolResultSent = (body: any, callID: string): string => JSON.stringify(body.messages.filter((m: any) => m.role === 'tool' && m.tool_call_id === callID));

  describe('webfetch', () => {
    it('refuses loopback and private addresses by default, naming why, and the model is told', async () => {
      const { client, scripted } = harness;
      const sessionID = await newSession(client);
      const port = new URL(web.url).port;
      scripted.reply(
        {
          steps: [
            { tool: 'webfetch', args: { url: `${web.url}/page`, format: 'text' }, id: 'call_ip' },
            { tool: 'webfetch', args: { url: `http://localhost:${port}/page`, format: 'text' }, id: 'call_name' },
          ],
        },
        { steps: [{ text: 'could not fetch' }] },
      );
      const { data } = await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'fetch my page' }] });
      expect(data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'could not fetch' });
      const tools = await toolParts(client, sessionID);
      expect(tools.map((t) => [t.callID, t.state.status])).toEqual([
        ['call_ip', 'error'],
        ['call_name', 'error'],
      ]);
      for (const tool of tools) {
        expect(tool.state.error).toContain('loopback or private address');
        expect(tool.state.error).toContain('KEEL_ALLOW_PRIVATE_FETCH=true');
      }
      const next = scripted.prompts.at(-1)!.body;
      expect(toolResultSent(next, 'call_ip')).toContain('loopback or private address');
    });

    it('with KEEL_ALLOW_PRIVATE_FETCH the page comes back as clean markdown and text', async () => {
      const { client, scripted } = permissive;
      const sessionID = await newSession(client);
      scripted.reply(
        {
          steps: [
            { tool: 'webfetch', args: { url: `${web.url}/page`, format: 'markdown' }, id: 'call_md' },
            { tool: 'webfetch', args: { url: `${web.url}/page`, format: 'text' }, id: 'call_text' },
          ],
        },
        { steps: [{ text: 'read it' }] },
      );
      await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'fetch my page' }] });
      const [markdown, text] = await toolParts(client, sessionID);
      expect(markdown.state).toMatchObject({ status: 'completed', metadata: { status: 200, contentType: 'text/html; charset=utf-8' } });
      expect(markdown.state.output).toBe(
        ['# Release notes', 'Keel fetched this page.', '- first item', '- second item', 'See [more](https://example.com/more).'].join('\n'),
      );
      expect(text.state.output).toBe(['Release notes', 'Keel fetched this page.', 'first item', 'second item', 'See more.'].join('\n'));
      for (const output of [markdown.state.output, text.state.output]) {
        expect(output).not.toMatch(/alert|<script|<p>|color:red|Ignored head|no js/);
      }
      expect(toolResultSent(scripted.prompts.at(-1)!.body, 'call_md')).toContain('# Release notes');
    });

    it('honours the size cap (declared or while streaming) and the time cap on a stalled body', async () => {
      const { client, scripted } = permissive;
      const sessionID = await newSession(client);
      scripted.reply(
        {
          steps: [
            { tool: 'webfetch', args: { url: `${web.url}/huge`, format: 'text' }, id: 'call_huge' },
            { tool: 'webfetch', args: { url: `${web.url}/stall`, format: 'text', timeout: 1 }, id: 'call_stall' },
            { tool: 'webfetch', args: { url: `${web.url}/declared-huge`, format: 'text', timeout: 5 }, id: 'call_declared' },
          ],
        },
        { steps: [{ text: 'both failed' }] },
      );
      const { data } = await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'fetch both' }] });
      expect(data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'both failed' });
      const [huge, stall, declared] = await toolParts(client, sessionID);
      expect(huge.state).toMatchObject({ status: 'error', error: 'Response too large (exceeds 5 MB limit)' });
      expect(declared.state).toMatchObject({ status: 'error', error: 'Response too large (exceeds 5 MB limit)' });
      expect(stall.state).toMatchObject({ status: 'error', error: 'Request timed out' });
    });

    it('an agent whose webfetch permission is "ask" waits for the reply; "reject" fails the call and ends the turn', async () => {
      const { client, scripted, events } = permissive;
      const sessionID = await newSession(client);
      scripted.reply({ steps: [{ tool: 'webfetch', args: { url: `${web.url}/page`, format: 'text' } }] }, { steps: [{ text: 'fetched after asking' }] });
      const approved = client.session.prompt({ sessionID, agent: 'careful', parts: [{ type: 'text', text: 'fetch' }] });
      const asked = await events.next<any>((e) => e.type === 'permission.updated' && e.properties.sessionID === sessionID);
      expect(asked.properties).toMatchObject({ type: 'webfetch', title: `Fetch ${web.url}/page`, metadata: { url: `${web.url}/page` } });
      await client.permission.respond({ sessionID, permissionID: asked.properties.id, response: 'once' });
      expect((await approved).data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'fetched after asking' });

      const before = scripted.prompts.length;
      scripted.reply({ steps: [{ tool: 'webfetch', args: { url: `${web.url}/page`, format: 'text' } }] });
      const refused = client.session.prompt({ sessionID, agent: 'careful', parts: [{ type: 'text', text: 'again' }] });
      const second = await events.next<any>((e) => e.type === 'permission.updated' && e.properties.sessionID === sessionID && e.properties.id !== asked.properties.id);
      await client.permission.respond({ sessionID, permissionID: second.properties.id, response: 'reject' });
      const { data } = await refused;
      expect((data!.parts.find((p) => p.type === 'tool') as any).state).toMatchObject({ status: 'error', error: expect.stringContaining(REJECTED) });
      expect(scripted.prompts.length).toBe(before + 1);
    });
  });

  describe('task', () => {
    it('the model calls task: a child session runs the subagent and the parent tool part completes with its answer', async () => {
      const { client, scripted, events } = harness;
      const sessionID = await newSession(client);
      scripted.reply(
        { steps: [{ text: 'Delegating.' }, { tool: 'task', args: { description: 'Count the files', prompt: 'Count the files in the project.', subagent_type: 'general' }, id: 'call_task' }] },
        { steps: [{ text: 'There are 3 files.' }] },
        { steps: [{ text: 'The subagent says 3.' }] },
      );
      const { data } = await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'how many files?' }] });
      expect(data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'The subagent says 3.' });

      const { data: children } = await client.session.children({ sessionID });
      expect(children).toHaveLength(1);
      const child = children![0];
      expect(child).toMatchObject({ parentID: sessionID, title: 'Count the files (@general subagent)' });
      const { data: childMessages } = await client.session.messages({ sessionID: child.id });
      expect(childMessages!.map((m) => m.info.role)).toEqual(['user', 'assistant']);
      expect(childMessages![0].info).toMatchObject({ agent: 'general' });
      expect(childMessages![0].parts[0]).toMatchObject({ type: 'text', text: 'Count the files in the project.' });
      expect(childMessages![1].parts.find((p) => p.type === 'text')).toMatchObject({ text: 'There are 3 files.' });

      const [task] = await toolParts(client, sessionID);
      expect(task).toMatchObject({ tool: 'task', callID: 'call_task', state: { status: 'completed', title: 'Count the files', metadata: { sessionId: child.id } } });
      expect(task.state.output).toBe(`There are 3 files.\n\n<task_metadata>\nsession_id: ${child.id}\n</task_metadata>`);
      // The running part told clients which child session to follow before the child finished.
      const running = events.ofType('message.part.updated').find((e) => e.properties.part.id === task.id && e.properties.part.state.status === 'running' && e.properties.part.state.metadata?.sessionId);
      expect(running.properties.part.state.metadata.sessionId).toBe(child.id);
      // The subagent may not start subagents of its own.
      const childRequest = scripted.prompts.find((r) => JSON.stringify(r.body.messages).includes('Count the files in the project.') && !JSON.stringify(r.body.messages).includes('how many files?'));
      expect(childRequest!.body.tools.map((t: any) => t.function.name)).not.toContain('task');
      expect(toolResultSent(scripted.prompts.at(-1)!.body, 'call_task')).toContain('There are 3 files.');
    });

    it('aborting the parent session aborts the running child session too', async () => {
      const { client, scripted, events } = harness;
      const sessionID = await newSession(client);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      scripted.reply(
        { steps: [{ tool: 'task', args: { description: 'Slow research', prompt: 'Research slowly.', subagent_type: 'general' }, id: 'call_slow' }] },
        { steps: [{ text: 'Starting research' }, { until: held }, { text: ' never finished' }] },
      );
      const pending = client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'research' }] });
      try {
        const created = await events.next<any>((e) => e.type === 'session.created' && e.properties.info.parentID === sessionID);
        const childID = created.properties.info.id;
        // The child's model is mid-reply (its assistant step has started) when the parent is aborted.
        await events.next((e) => e.type === 'message.part.updated' && e.properties.part.sessionID === childID && e.properties.part.type === 'step-start');
        expect(scripted.pending()).toBe(0);
        expect((await client.session.abort({ sessionID })).data).toBe(true);
        const { data } = await pending;
        expect(data!.info.error).toMatchObject({ name: 'MessageAbortedError' });
        const task = data!.parts.find((p) => p.type === 'tool') as any;
        expect(task.state).toMatchObject({ status: 'error', error: 'Tool execution aborted' });
        await events.next((e) => e.type === 'session.idle' && e.properties.sessionID === childID);
        const { data: childMessages } = await client.session.messages({ sessionID: childID });
        expect(childMessages!.at(-1)!.info).toMatchObject({ role: 'assistant', error: { name: 'MessageAbortedError' } });
        const { data: status } = await client.session.status();
        expect(status![childID]).toBeUndefined();
        expect(status![sessionID]).toBeUndefined();
      } finally {
        release();
      }
    });

    it('a prompt with a subtask part runs through the task tool, then the model summarises it', async () => {
      const { client, scripted } = harness;
      const sessionID = await newSession(client);
      scripted.reply({ steps: [{ text: 'Subtask result: all good.' }] }, { steps: [{ text: 'Summary: the subagent found all good.' }] });
      const { data } = await client.session.prompt({
        sessionID,
        parts: [{ type: 'subtask', agent: 'general', description: 'Check health', prompt: 'Check the health of the project.' }],
      });
      expect(data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'Summary: the subagent found all good.' });

      const { data: messages } = await client.session.messages({ sessionID });
      expect(messages!.map((m) => m.info.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      const [, taskMessage, followUp] = messages!;
      expect(taskMessage.info).toMatchObject({ finish: 'tool-calls' });
      const task = taskMessage.parts.find((p) => p.type === 'tool') as any;
      const { data: children } = await client.session.children({ sessionID });
      expect(children!.map((c) => c.parentID)).toEqual([sessionID]);
      expect(task).toMatchObject({
        tool: 'task',
        state: { status: 'completed', input: { description: 'Check health', prompt: 'Check the health of the project.', subagent_type: 'general' }, metadata: { sessionId: children![0].id } },
      });
      expect(task.state.output).toContain('Subtask result: all good.');
      expect(followUp.parts[0]).toMatchObject({ type: 'text', synthetic: true, text: 'Summarize the task tool output above and continue with your task.' });
      const last = JSON.stringify(scripted.prompts.at(-1)!.body.messages);
      expect(last).toContain('Subtask result: all good.');
      expect(last).toContain('Summarize the task tool output above');
    });
  });

  describe('doom loop', () => {
    const sameRead = (id: string) => ({ tool: 'read', args: { filePath: 'loop.txt' }, id });

    it('the third identical call asks doom_loop; "once" lets it run and the turn continues', async () => {
      const { client, scripted, events, dir } = harness;
      writeFileSync(join(dir, 'loop.txt'), 'same content\n');
      const sessionID = await newSession(client);
      scripted.reply({ steps: [sameRead('call_1'), sameRead('call_2'), sameRead('call_3')] }, { steps: [{ text: 'I will stop repeating.' }] });
      const pending = client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'read it again and again' }] });
      const asked = await events.next<any>((e) => e.type === 'permission.updated' && e.properties.sessionID === sessionID);
      expect(asked.properties).toMatchObject({ type: 'doom_loop', pattern: 'read', callID: 'call_3', metadata: { tool: 'read', input: { filePath: 'loop.txt' } } });
      expect(events.ofType('permission.updated').filter((e) => e.properties.sessionID === sessionID)).toHaveLength(1);
      await client.permission.respond({ sessionID, permissionID: asked.properties.id, response: 'once' });
      const { data } = await pending;
      expect(data!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'I will stop repeating.' });
      const tools = await toolParts(client, sessionID);
      expect(tools.map((t) => [t.callID, t.state.status])).toEqual([
        ['call_1', 'completed'],
        ['call_2', 'completed'],
        ['call_3', 'completed'],
      ]);
      expect(tools[2].state.output).toContain('same content');
    });

    it('"reject" fails the third call with the reference message and ends the turn', async () => {
      const { client, scripted, events } = harness;
      const sessionID = await newSession(client);
      scripted.reply({ steps: [sameRead('call_a'), sameRead('call_b'), sameRead('call_c')] });
      const before = scripted.prompts.length;
      const pending = client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'loop' }] });
      const asked = await events.next<any>((e) => e.type === 'permission.updated' && e.properties.sessionID === sessionID);
      expect(asked.properties).toMatchObject({ type: 'doom_loop', callID: 'call_c' });
      await client.permission.respond({ sessionID, permissionID: asked.properties.id, response: 'reject' });
      const { data } = await pending;
      expect(data!.info).toMatchObject({ finish: 'tool-calls' });
      expect(data!.info.error).toBeUndefined();
      const tools = await toolParts(client, sessionID);
      expect(tools.map((t) => t.state.status)).toEqual(['completed', 'completed', 'error']);
      expect(tools[2].state.error).toContain(REJECTED);
      expect(scripted.prompts.length).toBe(before + 1);
      await events.next((e) => e.type === 'session.idle' && e.properties.sessionID === sessionID);
    });

    it('two identical calls, or three with different input, do not ask', async () => {
      const { client, scripted, events } = harness;
      const sessionID = await newSession(client);
      scripted.reply(
        { steps: [sameRead('call_x'), sameRead('call_y'), { tool: 'read', args: { filePath: 'loop.txt', offset: 0 }, id: 'call_z' }] },
        { steps: [{ text: 'done' }] },
      );
      await client.session.prompt({ sessionID, parts: [{ type: 'text', text: 'read' }] });
      expect((await toolParts(client, sessionID)).map((t) => t.state.status)).toEqual(['completed', 'completed', 'completed']);
      expect(events.ofType('permission.updated').filter((e) => e.properties.sessionID === sessionID)).toHaveLength(0);
    });
  });

  describe('session.init', () => {
    it('runs the init template, the model writes AGENTS.md with its write tool, command.executed is published and the project is initialized', async () => {
      const { keel, scripted } = harness;
      const repo = tempDir('keel-tools-loop-init-');
      const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
      git('init', '-q');
      writeFileSync(join(repo, 'opencode.json'), JSON.stringify(scripted.config()));
      writeFileSync(join(repo, 'package.json'), JSON.stringify({ scripts: { test: 'jest' } }));
      git('add', '.');
      git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '-m', 'root');
      const client = createOpencodeClient({ baseUrl: keel.url, directory: repo });
      const events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(repo)}`);
      try {
        const { data: before } = await client.project.current();
        expect(before!.time.initialized).toBeUndefined();
        const sessionID = await newSession(client);
        const agentsMd = '# AGENTS.md\n\n- Test: `npm test`\n';
        scripted.reply({ steps: [{ tool: 'write', args: { filePath: join(repo, 'AGENTS.md'), content: agentsMd } }] }, { steps: [{ text: 'Wrote AGENTS.md.' }] });
        const messageID = ascendingId('msg');
        const { data, response } = await client.session.init({ sessionID, providerID: 'scripted', modelID: 'scripted-model', messageID });
        expect(response.status).toBe(200);
        expect(data).toBe(true);
        expect(readFileSync(join(repo, 'AGENTS.md'), 'utf8')).toBe(agentsMd);

        const request = scripted.prompts.find((r) => JSON.stringify(r.body.messages).includes('AGENTS.md file at its root'))!;
        const user = request.body.messages.filter((m: any) => m.role === 'user').at(-1);
        expect(JSON.stringify(user.content)).toContain(`(${repo})`);
        const { data: messages } = await client.session.messages({ sessionID });
        expect(messages![0].info.id).toBe(messageID);
        const executed = await events.next<any>((e) => e.type === 'command.executed' && e.properties.sessionID === sessionID);
        expect(executed.properties).toMatchObject({ name: 'init', sessionID, arguments: '' });
        const { data: after } = await client.project.current();
        expect(after!.time.initialized).toEqual(expect.any(Number));
        expect(existsSync(join(repo, 'AGENTS.md'))).toBe(true);
      } finally {
        events.close();
        rmSync(repo, { recursive: true, force: true });
      }
    });
  });
});
