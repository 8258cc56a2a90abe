import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { InstanceService } from '../src/projects/instance.service';
import { SseClient } from './support/sse';
import { expectReferenceSchema } from './support/reference-schema';
import { freshProcessEnv, spawnKeel, startKeel, tempDir, TestKeel } from './support/keel';

/** Small limits so replay truncation and slow-client handling show within a test's budget. */
const REPLAY_BYTES = 4096;
process.env.KEEL_PTY_REPLAY_BYTES = String(REPLAY_BYTES);
process.env.KEEL_PTY_CLIENT_HIGH_WATER = String(64 * 1024);
process.env.KEEL_PTY_SLOW_CLIENT_GRACE_MS = '500';

/** A terminal client as the reference's web app is: raw text frames both ways. */
class TerminalClient {
  readonly opened: Promise<void>;
  readonly closed: Promise<number>;
  /** Received frames, joined on demand: outputs here run to megabytes. */
  private chunks: string[] = [];
  private waiters: { test: (chunk: string) => boolean; resolve: () => void }[] = [];

  constructor(readonly socket: WebSocket) {
    this.opened = new Promise((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    this.closed = new Promise((resolve) => socket.once('close', (code) => resolve(code)));
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      const chunk = (data as Buffer).toString('utf8');
      this.chunks.push(chunk);
      this.waiters = this.waiters.filter((w) => {
        if (!w.test(chunk)) return true;
        w.resolve();
        return false;
      });
    });
  }

  get text(): string {
    if (this.chunks.length > 1) this.chunks = [this.chunks.join('')];
    return this.chunks[0] ?? '';
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<TerminalClient> {
    const client = new TerminalClient(new WebSocket(url, { headers }));
    await client.opened;
    return client;
  }

  type(text: string): void {
    this.socket.send(text);
  }

  /** Resolves once the received text contains `expected` (or matches it). */
  waitFor(expected: string | RegExp, timeoutMs = 10_000): Promise<void> {
    // A string is looked for in the newest chunk plus the end of what came before it.
    let tail = '';
    const test = (chunk?: string) => {
      if (typeof expected !== 'string') return expected.test(this.text);
      if (chunk === undefined) {
        tail = this.text.slice(-expected.length);
        return this.text.includes(expected);
      }
      const window = tail + chunk;
      tail = window.slice(-expected.length);
      return window.includes(expected);
    };
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${String(expected)} within ${timeoutMs} ms; got ${JSON.stringify(this.text.slice(-500))}`)),
        timeoutMs,
      );
      this.waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  close(): void {
    this.socket.close();
  }
}

/** The HTTP answer to an upgrade that was refused. */
function refusedUpgrade(url: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('open', () => reject(new Error('upgrade was accepted')));
    socket.once('error', () => undefined);
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
  });
}

/** Alive and not a zombie (PID 1 of a container may never reap). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function waitUntilDead(pids: number[], timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isAlive)) {
    if (Date.now() > deadline) throw new Error(`still alive: ${pids.filter(isAlive).join(', ')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('terminals: /pty and its WebSocket', () => {
  let keel: TestKeel;
  let dir: string;
  let events: SseClient;
  const client = () => createOpencodeClient({ baseUrl: keel.url, directory: dir });
  const wsUrl = (id: string, query = '') =>
    `${keel.url.replace(/^http/, 'ws')}/pty/${id}/connect?directory=${encodeURIComponent(dir)}${query}`;
  const sh = (script: string, ...rest: string[]) => client().pty.create({ command: '/bin/sh', args: ['-c', script, ...rest] });

  beforeAll(async () => {
    keel = await startKeel();
    dir = tempDir('keel-pty-');
    events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(dir)}`);
  });

  afterAll(async () => {
    events.close();
    await keel.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the user shell as a login shell: typing `echo hi` prints hi', async () => {
    const { data: pty, response } = await client().pty.create({});
    expect(response.status).toBe(200);
    expectReferenceSchema(pty, 'Pty');
    expect(pty).toMatchObject({ cwd: dir, status: 'running', command: process.env.SHELL || '/bin/sh', title: `Terminal ${pty!.id.slice(-4)}` });
    expect(pty!.args.at(-1)).toBe('-l');
    const created = await events.next((e) => e.type === 'pty.created' && e.properties.info.id === pty!.id);
    expect(created).toEqual({ type: 'pty.created', properties: { info: pty } });

    const term = await TerminalClient.open(wsUrl(pty!.id));
    term.type('echo $TERM; echo h""i\r');
    await term.waitFor(/\r\nhi\r\n/);
    expect(term.text).toContain('xterm-256color');

    const { data: list } = await client().pty.list();
    expect(list?.map((p) => p.id)).toContain(pty!.id);
    const { data: got } = await client().pty.get({ ptyID: pty!.id });
    expect(got).toEqual(pty);
    await client().pty.remove({ ptyID: pty!.id });
    expect(await term.closed).toBe(1000);
  });

  it('renames and resizes the real terminal: stty size reports the new size', async () => {
    const { data: pty } = await sh('read line; stty size; read line');
    const term = await TerminalClient.open(wsUrl(pty!.id));
    const { data: updated } = await client().pty.update({ ptyID: pty!.id, title: 'build', size: { rows: 30, cols: 100 } });
    expect(updated).toMatchObject({ id: pty!.id, title: 'build' });
    await events.next((e) => e.type === 'pty.updated' && e.properties.info.id === pty!.id && e.properties.info.title === 'build');
    term.type('\r');
    await term.waitFor('30 100');
    await client().pty.remove({ ptyID: pty!.id });
  });

  it('replays output produced while no client was attached (the newest bytes, bounded)', async () => {
    // 6000 bytes of output while detached, more than the 4096-byte replay buffer.
    const { data: pty } = await sh('sleep 0.3; printf "%06d|" $(seq 1 857); printf "é-END"; sleep 30');
    await delay(1200);
    const first = await TerminalClient.open(wsUrl(pty!.id));
    await first.waitFor('é-END');
    expect(first.text.startsWith('000001|')).toBe(false);
    expect(Buffer.byteLength(first.text)).toBeLessThanOrEqual(REPLAY_BYTES);
    expect(first.text).toMatch(/^\d*\|(\d{6}\|)+é-END$/);
    expect(first.text).toContain('000857|');

    // Only the first client gets the replay; a later one sees new output only.
    const second = await TerminalClient.open(wsUrl(pty!.id));
    await delay(100);
    expect(second.text).toBe('');
    await client().pty.remove({ ptyID: pty!.id });
  });

  it('sends output to every attached client; closing a socket does not kill the process', async () => {
    const { data: pty } = await client().pty.create({ command: 'cat' });
    const a = await TerminalClient.open(wsUrl(pty!.id));
    const b = await TerminalClient.open(wsUrl(pty!.id));
    a.type('ping\r');
    await Promise.all([a.waitFor('ping\r\nping\r\n'), b.waitFor('ping\r\nping\r\n')]);
    a.close();
    await a.closed;
    b.type('pong\r');
    await b.waitFor('pong\r\npong\r\n');
    expect(isAlive(pty!.pid)).toBe(true);
    await client().pty.remove({ ptyID: pty!.id });
  });

  it('`exit 3` publishes pty.exited with 3, closes the sockets with 1000 and forgets the terminal', async () => {
    const { data: pty } = await sh('read line; exit $line');
    const term = await TerminalClient.open(wsUrl(pty!.id));
    term.type('3\r');
    expect(await term.closed).toBe(1000);
    const exited = await events.next((e) => e.type === 'pty.exited' && e.properties.id === pty!.id);
    expect(exited).toEqual({ type: 'pty.exited', properties: { id: pty!.id, exitCode: 3 } });
    const { response, error } = await client().pty.get({ ptyID: pty!.id });
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ name: 'NotFoundError', data: { message: expect.stringContaining(pty!.id) } });
    expect(events.ofType('pty.deleted').some((e) => e.properties.id === pty!.id)).toBe(false);
  });

  it('DELETE kills the process and its whole tree (background jobs, setsid children) and closes the sockets', async () => {
    const { data: pty } = await sh('sleep 300 & echo "job=$!"; setsid sleep 301 & echo "detached=$!"; echo ready; exec sleep 302');
    const term = await TerminalClient.open(wsUrl(pty!.id));
    await term.waitFor(/detached=\d+[\s\S]*ready/);
    const pids = [pty!.pid, ...[...term.text.matchAll(/(?:job|detached)=(\d+)/g)].map((m) => Number(m[1]))];
    expect(pids).toHaveLength(3);
    expect(pids.every(isAlive)).toBe(true);

    const { data: removed } = await client().pty.remove({ ptyID: pty!.id });
    expect(removed).toBe(true);
    expect(await term.closed).toBe(1000);
    await waitUntilDead(pids);
    await events.next((e) => e.type === 'pty.deleted' && e.properties.id === pty!.id);
    expect((await client().pty.get({ ptyID: pty!.id })).response.status).toBe(404);
    expect((await client().pty.remove({ ptyID: pty!.id })).response.status).toBe(404);
  });

  it('a 1 MB paste arrives intact, and output never splits a UTF-8 character', async () => {
    const unit = 'ascii é € 😀 中文\n';
    let paste = unit.repeat(Math.floor((1 << 20) / Buffer.byteLength(unit)));
    paste += 'x'.repeat((1 << 20) - Buffer.byteLength(paste));
    const file = join(dir, 'paste.txt');
    const { data: pty } = await sh(
      'stty raw -echo; echo READY; head -c 1048576 > "$0"; stty sane; echo WRITTEN; cat "$0"; echo; echo END; read line',
      file,
    );
    const term = await TerminalClient.open(wsUrl(pty!.id));
    await term.waitFor('READY');
    term.type(paste);
    await term.waitFor('\r\nEND\r\n', 20_000);
    expect(readFileSync(file, 'utf8')).toBe(paste);
    const echoed = term.text.slice(term.text.indexOf('WRITTEN\r\n') + 9, term.text.lastIndexOf('\r\nEND'));
    expect(echoed).not.toContain('\ufffd');
    expect(echoed).toBe(paste.replace(/\n/g, '\r\n'));
    await client().pty.remove({ ptyID: pty!.id });
  });

  it('turns invalid UTF-8 output into U+FFFD instead of breaking the text frames', async () => {
    const { data: pty } = await sh("read line; printf 'a\\377b\\n'; read line");
    const term = await TerminalClient.open(wsUrl(pty!.id));
    term.type('\r');
    await term.waitFor('a\ufffdb');
    term.type('\r');
    expect(await term.closed).toBe(1000);
  });

  it('drops a client that stops reading, without holding up the others', async () => {
    const { data: pty } = await sh('read line; head -c 12000000 /dev/zero | tr "\\0" x; echo; echo END; read line');
    const fast = await TerminalClient.open(wsUrl(pty!.id));
    const stalled = await TerminalClient.open(wsUrl(pty!.id));
    (stalled.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    fast.type('\r');
    await fast.waitFor('END', 20_000);
    const output = fast.text.slice(fast.text.indexOf('x'), fast.text.lastIndexOf('x') + 1);
    expect(output.length).toBe(12_000_000);
    // No quantified pattern over 12 MB: V8's regexp engine can overflow its stack on one.
    expect(/[^x]/.test(output)).toBe(false);
    (stalled.socket as unknown as { _socket: { resume(): void } })._socket.resume();
    // Cut off: it may or may not have read the close frame queued behind its backlog.
    expect([1006, 1013]).toContain(await stalled.closed);
    await client().pty.remove({ ptyID: pty!.id });
  });

  it('rejects invalid bodies with 400 naming the field, and unknown ids with 404', async () => {
    const bad = async (response: Response, path: (string | number)[]) => {
      expect(response.status).toBe(400);
      const body = (await response.json()) as { success: boolean; error: { path: unknown[] }[] };
      expect(body.success).toBe(false);
      expect(body.error.map((i) => i.path)).toContainEqual(path);
    };
    const post = (body: unknown) =>
      fetch(`${keel.url}/pty?directory=${encodeURIComponent(dir)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await bad(await post({ args: 'ls' }), ['args']);
    await bad(await post({ env: { A: 1 } }), ['env', 'A']);
    await bad(await post({ cwd: '/etc' }), ['cwd']);
    await bad(await post({ cwd: join(dir, 'missing') }), ['cwd']);

    mkdirSync(join(dir, 'sub'), { recursive: true });
    const { data: pty } = await client().pty.create({ command: 'cat', cwd: 'sub' });
    expect(pty!.cwd).toBe(join(dir, 'sub'));
    const put = (body: unknown, id = pty!.id) =>
      fetch(`${keel.url}/pty/${id}?directory=${encodeURIComponent(dir)}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await bad(await put({ size: { rows: 10 } }), ['size', 'cols']);
    await bad(await put({ size: { rows: 0, cols: 80 } }), ['size', 'rows']);
    await bad(await put({ title: 5 }), ['title']);
    expect((await put({ title: 'x' }, 'pty_unknown')).status).toBe(404);
    const missing = await client().pty.get({ ptyID: 'pty_unknown' });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ name: 'NotFoundError' });

    // Another directory's terminals are not visible here.
    const other = tempDir('keel-pty-other-');
    const { data: elsewhere } = await createOpencodeClient({ baseUrl: keel.url, directory: other }).pty.get({ ptyID: pty!.id });
    expect(elsewhere).toBeUndefined();
    rmSync(other, { recursive: true, force: true });
    await client().pty.remove({ ptyID: pty!.id });
  });

  it('connect: unknown id is a 404 before the upgrade; a plain GET answers true', async () => {
    const refused = await refusedUpgrade(wsUrl('pty_unknown'));
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.body)).toMatchObject({ name: 'NotFoundError' });
    expect((await refusedUpgrade(`${keel.url.replace(/^http/, 'ws')}/nowhere`)).status).toBe(404);
    expect((await refusedUpgrade(`${keel.url.replace(/^http/, 'ws')}/pty/%E0%A4%A/connect`)).status).toBe(404);
    const outside = await refusedUpgrade(`${keel.url.replace(/^http/, 'ws')}/pty/pty_x/connect?directory=relative`);
    expect(outside.status).toBe(400);
    expect(JSON.parse(outside.body)).toMatchObject({ success: false, error: [{ path: ['directory'] }] });

    const { data: pty } = await client().pty.create({ command: 'cat' });
    const { data, response } = await client().pty.connect({ ptyID: pty!.id });
    expect(response.status).toBe(200);
    expect(data).toBe(true);
    expect((await client().pty.connect({ ptyID: 'pty_unknown' })).response.status).toBe(404);
    const doc = (await (await fetch(`${keel.url}/doc`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    expect(doc.paths['/pty/{ptyID}/connect'].get.operationId).toBe('pty.connect');
    await client().pty.remove({ ptyID: pty!.id });
  });

  it('instance dispose kills the directory’s terminals', async () => {
    const { data: pty } = await sh('exec sleep 303');
    const term = await TerminalClient.open(wsUrl(pty!.id));
    await keel.keel.app.get(InstanceService).dispose(dir);
    expect(await term.closed).toBe(1000);
    await waitUntilDead([pty!.pid]);
    expect((await client().pty.list()).data).toEqual([]);
  });
});

describe('terminals behind the server password, and on shutdown', () => {
  let keel: TestKeel;
  let dir: string;
  const auth = Buffer.from('opencode:secret').toString('base64');

  beforeAll(async () => {
    keel = await startKeel({ env: { KEEL_SERVER_PASSWORD: 'secret' } });
    dir = tempDir('keel-pty-auth-');
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('requires the password on the upgrade (header or ?auth_token=), and shutdown kills every terminal', async () => {
    const client = createOpencodeClient({ baseUrl: keel.url, directory: dir, headers: { authorization: `Basic ${auth}` } });
    const { data: pty } = await client.pty.create({ command: '/bin/sh', args: ['-c', 'sleep 304 & exec sleep 305'] });
    const url = `${keel.url.replace(/^http/, 'ws')}/pty/${pty!.id}/connect?directory=${encodeURIComponent(dir)}`;

    const refused = await refusedUpgrade(url);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Basic realm="Secure Area"');
    expect((await refusedUpgrade(`${url}&auth_token=${Buffer.from('opencode:wrong').toString('base64')}`)).status).toBe(401);

    const byToken = await TerminalClient.open(`${url}&auth_token=${encodeURIComponent(auth)}`);
    const byHeader = await TerminalClient.open(url, { authorization: `Basic ${auth}` });

    await delay(100);
    const children = readFileSync(`/proc/${pty!.pid}/task/${pty!.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    await keel.close();
    expect(await byToken.closed).not.toBe(0);
    await byHeader.closed;
    await waitUntilDead([pty!.pid, ...children]);
  });
});

describe('terminals of the built server process', () => {
  it('SIGTERM leaves no terminal process behind', async () => {
    const { env, cleanup } = await freshProcessEnv();
    const server = await spawnKeel(env);
    const dir = tempDir('keel-pty-process-');
    try {
      const client = createOpencodeClient({ baseUrl: server.url, directory: dir });
      const { data: pty } = await client.pty.create({ command: '/bin/sh', args: ['-c', 'sleep 306 & echo "job=$!"; exec sleep 307'] });
      const term = await TerminalClient.open(`${server.url.replace(/^http/, 'ws')}/pty/${pty!.id}/connect?directory=${encodeURIComponent(dir)}`);
      await term.waitFor(/job=\d+/);
      const job = Number(/job=(\d+)/.exec(term.text)![1]);
      // Nest re-raises the signal after its shutdown hooks: the process ends by SIGTERM, not a code.
      await server.stop('SIGTERM');
      expect(String(server.child.signalCode ?? server.child.exitCode)).toMatch(/^(SIGTERM|0)$/);
      await waitUntilDead([pty!.pid, job]);
    } finally {
      if (server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
      await cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
