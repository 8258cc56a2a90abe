import { rmSync } from 'node:fs';
import { ToolRegistry } from '../src/tools/tool-registry.service';
import { ToolError } from '../src/tools/tool';
import type { ToolContext } from '../src/tools/tool';
import { expectMemoryError, expectRoutingError, expectSessionBadRequest } from './support/error-bodies';
import { startKeel, tempDir, TestKeel } from './support/keel';

/**
 * Malformed input that used to answer 500 (issue 10, "Bad input"): too-deep JSON, huge values echoed
 * back, NUL characters (PostgreSQL cannot store them), non-finite numbers and commands no process can
 * take. Each must be a 400 in its surface's dialect naming the field, with a bounded body.
 */
type Json = Record<string, any>;

/** Largest error body any of these may produce (the echo bound is 16 K characters plus the issues). */
const MAX_ERROR_BYTES = 64 * 1024;

describe('bad input: a 4xx in the surface dialect, never a 500', () => {
  let keel: TestKeel;
  let dir: string;
  let sessionID: string;

  beforeAll(async () => {
    dir = tempDir('keel-bad-input-');
    keel = await startKeel({ env: { KEEL_ALLOWED_DIRECTORIES: dir } });
    sessionID = (await call('POST', `/session?directory=${encodeURIComponent(dir)}`, {})).json.id;
  });

  afterAll(async () => {
    await keel.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `body` is sent as JSON, or as is when a string (raw JSON text). */
  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string; json: Json }> {
    const response = await fetch(`${keel.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let json: Json = {};
    try {
      json = JSON.parse(text) as Json;
    } catch {
      // not JSON: the assertions on status and dialect say so
    }
    return { status: response.status, text, json };
  }

  const session = (path: string) => `${path}${path.includes('?') ? '&' : '?'}directory=${encodeURIComponent(dir)}`;

  /** Session dialect, an issue at `path` matching `message`, in a bounded body. */
  function expectSessionIssue(r: { status: number; json: Json; text: string }, path: (string | number)[], message: RegExp): void {
    expect(r.status).toBe(400);
    expect(expectSessionBadRequest(r.json).error).toEqual(expect.arrayContaining([expect.objectContaining({ path, message: expect.stringMatching(message) })]));
    expect(Buffer.byteLength(r.text)).toBeLessThan(MAX_ERROR_BYTES);
  }

  /** Memory dialect naming the field, in a bounded body. */
  function expectMemoryIssue(r: { status: number; json: Json; text: string }, details: RegExp): void {
    expect(r.status).toBe(400);
    expectMemoryError(r.json, { details });
    expect(Buffer.byteLength(r.text)).toBeLessThan(MAX_ERROR_BYTES);
  }

  /** Routing-manager dialect naming the field, in a bounded body. */
  function expectRoutingIssue(r: { status: number; json: Json; text: string }, message: RegExp): void {
    expect(r.status).toBe(400);
    expectRoutingError(r.json, 400, message);
    expect(Buffer.byteLength(r.text)).toBeLessThan(MAX_ERROR_BYTES);
  }

  const nested = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);
  const TOO_DEEP = /deeper than 64/;

  describe('deep nesting is refused at parse time', () => {
    it('session surface: 5,000 levels on create, config, project and auth', async () => {
      expectSessionIssue(await call('POST', session('/session'), `{"title":${nested(5000)}}`), [], TOO_DEEP);
      expectSessionIssue(await call('PATCH', session('/config'), `{"model":${nested(5000)}}`), [], TOO_DEEP);
      expectSessionIssue(await call('PUT', session('/auth/openai'), `{"type":"api","key":${nested(5000)}}`), [], TOO_DEEP);
      const project = (await call('GET', session('/project/current'))).json;
      expectSessionIssue(await call('PATCH', session(`/project/${project.id}`), `{"name":${nested(5000)}}`), [], TOO_DEEP);
      // Brackets inside strings (escaped quotes included) do not count.
      const inString = await call('POST', session('/session'), JSON.stringify({ title: `\\"${'['.repeat(5000)}` }));
      expect(inString.status).toBe(200);
    });

    it('memory surface: {error, details}, in UTF-8 and in UTF-16', async () => {
      expectMemoryIssue(await call('POST', '/v3/documents', `{"content":"x","metadata":{"a":${nested(5000)}}}`), TOO_DEEP);
      const utf16 = await fetch(`${keel.url}/v3/documents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-16le' },
        body: Buffer.from(`{"content":"x","metadata":{"a":${nested(5000)}}}`, 'utf16le'),
      });
      expectMemoryIssue({ status: utf16.status, text: '', json: (await utf16.json()) as Json }, TOO_DEEP);
    });

    it('memory surface: JSON in a multipart form field obeys the same cap', async () => {
      const form = new FormData();
      form.append('file', new Blob(['plain text']), 'note.txt');
      form.append('metadata', `{"a":${nested(5000)}}`);
      const upload = await fetch(`${keel.url}/v3/documents/file`, { method: 'POST', body: form });
      expectMemoryIssue({ status: upload.status, text: '', json: (await upload.json()) as Json }, /^metadata: .*deeper than 64/);
    });

    it('routing manager: {code, message}', async () => {
      expectRoutingIssue(await call('POST', '/api/middlewares', `{"name":"deep","type":"headers","config":{"x":${nested(5000)}}}`), TOO_DEEP);
    });

    it('a charset whose bytes cannot be scanned (UTF-32) is refused with 415: RFC 8259 asks for UTF-8', async () => {
      const r = await fetch(`${keel.url}/api/middlewares`, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-32' }, body: Buffer.from('{}') });
      expect(r.status).toBe(415);
      expectRoutingError(await r.json(), 415, /UTF-8/);
    });

    it('accepts 64 levels and refuses 65', async () => {
      const at = (depth: number) => call('POST', session('/session'), `{"title":"t","x":${nested(depth - 1)}}`);
      expect((await at(64)).json.error ?? []).not.toEqual(expect.arrayContaining([expect.objectContaining({ message: expect.stringMatching(TOO_DEEP) })]));
      expectSessionIssue(await at(65), [], TOO_DEEP);
    });
  });

  describe('error bodies echo a bounded part of the input', () => {
    const huge = 'a'.repeat(5 * 1024 * 1024);

    it('session surface: the echoed data keeps its shape, strings are cut', async () => {
      const r = await call('POST', session('/session'), { parentID: huge, title: 'kept' });
      expectSessionIssue(r, ['parentID'], /.+/);
      expect(r.json.data.title).toBe('kept');
      expect(r.json.data.parentID).toMatch(/^a{1000}… \(5242880 characters\)$/);
    });

    it('memory surface: a huge key in an issue path is cut', async () => {
      expectMemoryIssue(await call('POST', '/v3/documents', { content: 'x', metadata: { [huge]: { nested: 1 } } }), /^metadata\.a+…/);
    });

    it('routing manager: a huge array of bad items is a bounded 400', async () => {
      const servers = new Array<number>(1_000_000).fill(0);
      expectRoutingIssue(await call('POST', '/api/services', { name: 'many', type: 'loadBalancer', config: { servers } }), /^config\.servers\.0: /);
    });

    it('routing manager: a message quoting a huge value is cut', async () => {
      expectRoutingIssue(await call('POST', '/api/middlewares', { name: 'big', type: huge, config: {} }), /type/);
    });
  });

  describe('NUL characters: one rule on both engines, 400 naming the field', () => {
    it('session surface: ids and body strings', async () => {
      expectSessionIssue(await call('GET', session('/session/ses%00x')), ['sessionID'], /NUL/);
      expectSessionIssue(await call('POST', session('/session'), { title: 'a\u0000b' }), ['title'], /NUL/);
      expectSessionIssue(await call('PATCH', session(`/session/${sessionID}`), { title: 'ok', ['k\u0000']: 1 }), ['k\u0000'], /NUL/);
    });

    it('memory surface: ids, documents, conversations and memories', async () => {
      expectMemoryIssue(await call('GET', '/v3/documents/%00'), /^id: .*NUL/);
      expectMemoryIssue(await call('POST', '/v3/documents', { content: 'a\u0000b', containerTag: 'nul' }), /^content: .*NUL/);
      expectMemoryIssue(await call('POST', '/v4/conversations', { conversationId: 'c1', messages: [{ role: 'user', content: 'hi\u0000' }] }), /^messages\.0\.content: .*NUL/);
      expectMemoryIssue(await call('PATCH', '/v4/memories', { containerTag: 'nul', content: 'x', newContent: 'y\u0000' }), /^newContent: .*NUL/);
      const form = new FormData();
      form.append('file', new Blob(['plain text']), 'note.txt');
      form.append('customId', 'a\u0000b');
      const upload = await fetch(`${keel.url}/v3/documents/file`, { method: 'POST', body: form });
      expectMemoryIssue({ status: upload.status, text: await upload.clone().text(), json: (await upload.json()) as Json }, /customId: .*NUL/);
    });

    it('memory batch: the item with a NUL fails alone, the others are stored', async () => {
      const r = await call('POST', '/v3/documents/batch', {
        containerTag: 'nul-batch',
        documents: [{ content: 'first good' }, { content: 'bad \u0000 one' }, 'third good', { content: 'fine', metadata: { ['k\u0000']: 'v' } }],
      });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ success: 2, failed: 2 });
      expect(r.json.results[1]).toMatchObject({ status: 'error', details: expect.stringMatching(/^documents\.1\.content: .*NUL/) });
      expect(r.json.results[3]).toMatchObject({ status: 'error', details: expect.stringMatching(/^documents\.3\.metadata\.k\u0000: .*NUL/) });
      for (const i of [0, 2]) {
        const stored = await call('GET', `/v3/documents/${r.json.results[i].id}`);
        expect(stored.status).toBe(200);
        expect(stored.json.content).toBe(i === 0 ? 'first good' : 'third good');
      }
    });

    it('memory pipeline: NUL bytes in an uploaded file are not text and are dropped, not a failure', async () => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('binary\u0000debris and the harbour master\u0000', 'utf8')], { type: 'text/plain' }), 'debris.txt');
      const upload = await fetch(`${keel.url}/v3/documents/file`, { method: 'POST', body: form });
      expect(upload.status).toBe(200);
      const { id } = (await upload.json()) as Json;
      let doc: Json = {};
      for (const started = Date.now(); Date.now() - started < 20_000; await new Promise((r) => setTimeout(r, 100))) {
        doc = (await call('GET', `/v3/documents/${id}`)).json;
        if (doc.status === 'done' || doc.status === 'failed') break;
      }
      expect(doc.status).toBe('done');
      const chunks = (await call('GET', `/v3/documents/${id}/chunks`)).json;
      expect(chunks.chunks[0].content).toBe('binarydebris and the harbour master');
    });

    it('routing manager: ids and body strings', async () => {
      expectRoutingIssue(await call('GET', '/api/middlewares/%00'), /^id: .*NUL/);
      expectRoutingIssue(await call('POST', '/api/middlewares', { name: 'a\u0000b', type: 'headers', config: {} }), /^name: .*NUL/);
      expectRoutingIssue(await call('POST', '/api/middlewares', { name: 'n', type: 'headers', config: { customRequestHeaders: { X: 'v\u0000' } } }), /^config\.customRequestHeaders\.X: .*NUL/);
    });
  });

  describe('numeric parameters must be finite', () => {
    it('session surface: query limits', async () => {
      expectSessionIssue(await call('GET', session(`/session/${sessionID}/message?limit=1e309`)), ['limit'], /number/);
      expectSessionIssue(await call('GET', session('/find/file?query=x&limit=1e309')), ['limit'], /.+/);
      // Finite but past any count: all messages.
      expect((await call('GET', session(`/session/${sessionID}/message?limit=1e300`))).status).toBe(200);
    });

    it('session surface: a time in epoch milliseconds is rounded, and refused past the range of a date', async () => {
      const archived = await call('PATCH', session(`/session/${sessionID}`), { time: { archived: 1.5 } });
      expect(archived.status).toBe(200);
      expect(archived.json.time.archived).toBe(2);
      expectSessionIssue(await call('PATCH', session(`/session/${sessionID}`), { time: { archived: 1e300 } }), ['time', 'archived'], /epoch milliseconds/);
    });

    it('memory surface: JSON numbers that overflow to Infinity', async () => {
      expectMemoryIssue(await call('POST', '/v3/search', '{"q":"x","limit":1e309}'), /^limit: /);
      expectMemoryIssue(await call('POST', '/v3/documents/list', '{"page":1e20}'), /^page: /);
    });

    it('routing manager: JSON integers that overflow', async () => {
      expectRoutingIssue(await call('PUT', '/api/resources/any/config/priority', '{"router_priority":1e309}'), /^router_priority: /);
    });
  });

  describe('shell commands no process can take', () => {
    it('POST /session/{id}/shell answers 400 naming command for a NUL or an oversize command', async () => {
      expectSessionIssue(await call('POST', session(`/session/${sessionID}/shell`), { agent: 'build', command: 'echo a\u0000b' }), ['command'], /NUL/);
      expectSessionIssue(await call('POST', session(`/session/${sessionID}/shell`), { agent: 'build', command: `echo ${'x'.repeat(1024 * 1024)}` }), ['command'], /at most/);
      const ok = await call('POST', session(`/session/${sessionID}/shell`), { agent: 'build', command: 'echo fine' });
      expect(ok.status).toBe(200);
    });

    it('the bash tool reports such a command as a tool error (the model sees it) instead of crashing', async () => {
      const registry = keel.keel.app.get(ToolRegistry);
      const bash = registry.get('bash')!;
      const ctx: ToolContext = {
        sessionID: 'ses_test',
        messageID: 'msg_test',
        callID: 'call_1',
        agent: 'build',
        directory: dir,
        worktree: dir,
        abort: new AbortController().signal,
        metadata: () => undefined,
        permit: () => Promise.resolve(),
        publish: () => undefined,
      };
      const run = (command: string) => bash.execute(bash.parameters.parse({ command, description: 'bad' }), ctx);
      await expect(run('echo a\u0000b')).rejects.toThrow(ToolError);
      await expect(run('echo a\u0000b')).rejects.toThrow(/NUL/);
      await expect(run(`echo ${'x'.repeat(1024 * 1024)}`)).rejects.toThrow(ToolError);
      await expect(run('echo fine')).resolves.toMatchObject({ output: 'fine\n' });
    });
  });
});
