import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { expectMemoryError, expectRoutingError, expectSessionError } from './support/error-bodies';
import { builtServerEntry, freshProcessEnv, spawnKeel, startKeel, tempDir, testDatabaseServer, TestKeel } from './support/keel';

const root = join(__dirname, '..');

/** What a raw socket receives until the server closes it (or `waitMs` passes). */
function trickle(url: string, sent: string, waitMs: number): Promise<{ answer: string; closedAfterMs: number | undefined }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const started = Date.now();
    let answer = '';
    const socket = connect(Number(port), hostname, () => socket.write(sent));
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closedAfterMs: undefined });
    }, waitMs);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer, closedAfterMs: Date.now() - started });
    });
  });
}

describe('slow clients: header and body time are bounded, answers are not', () => {
  let keel: TestKeel;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('keel-slow-');
    keel = await startKeel({ env: { KEEL_HEADERS_TIMEOUT_MS: '600', KEEL_REQUEST_TIMEOUT_MS: '1000' } });
  });
  afterAll(() => keel?.close());

  it('a connection that never finishes its headers is answered 408 and closed', async () => {
    const { answer, closedAfterMs } = await trickle(keel.url, 'GET /session HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', 5_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeDefined();
  });

  it('a body that never arrives is answered 408 and closed, and nothing is created', async () => {
    const before = (await (await fetch(`${keel.url}/session?directory=${encodeURIComponent(dir)}`)).json()) as unknown[];
    const { answer, closedAfterMs } = await trickle(
      keel.url,
      `POST /session?directory=${encodeURIComponent(dir)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"title":`,
      5_000,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeDefined();
    expect(await (await fetch(`${keel.url}/session?directory=${encodeURIComponent(dir)}`)).json()).toHaveLength(before.length);
  });

  it('an answer that takes longer than the request timeout is still sent (a shell command, like a prompt, answers when done)', async () => {
    const session = (await (await fetch(`${keel.url}/session?directory=${encodeURIComponent(dir)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as { id: string };
    const response = await fetch(`${keel.url}/session/${session.id}/shell?directory=${encodeURIComponent(dir)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'build', command: 'sleep 2; echo slow-but-whole' }),
    });
    expect(response.status).toBe(200);
    expect(JSON.stringify(await response.json())).toContain('slow-but-whole');
  });
});

describe('installed under a dot-directory (~/.local, npm\'s ~/.npm/_npx cache)', () => {
  it('serves the console at /ui/ and its client routes', async () => {
    const home = tempDir('keel-dot-');
    const install = join(home, '.local', 'lib', 'keel');
    mkdirSync(join(install, 'console'), { recursive: true });
    cpSync(join(builtServerEntry(), '..', '..'), join(install, 'dist'), { recursive: true });
    cpSync(join(root, 'console', 'dist'), join(install, 'console', 'dist'), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(install, 'node_modules'));
    const { env, cleanup } = await freshProcessEnv();
    const child = spawn(process.execPath, [join(install, 'dist', 'bundle', 'main.js')], { cwd: home, env: { ...process.env, DATABASE_URL: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const match = /listening on (\S+)/.exec(out);
          if (match) resolve(match[1]);
        });
        child.stderr.on('data', (c: Buffer) => (out += c.toString()));
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      for (const path of ['/ui/', '/ui/sessions', '/ui/memory/documents']) {
        const response = await fetch(`${url}${path}`);
        expect([path, response.status, response.headers.get('content-type')]).toEqual([path, 200, expect.stringMatching(/^text\/html/)]);
        expect(await response.text()).toContain('<div id="root">');
      }
    } finally {
      child.kill();
      await cleanup();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

const onPostgres = testDatabaseServer ? describe : describe.skip;

onPostgres('PostgreSQL backends terminated under load', () => {
  it('answers reads from a fresh connection and never 500, on every surface: writes are done or 503 with Retry-After in the surface\'s dialect', async () => {
    const { env, cleanup } = await freshProcessEnv({ KEEL_LOG_LEVEL: 'warn' });
    const keel = await spawnKeel(env);
    const dir = tempDir('keel-terminate-');
    const q = `directory=${encodeURIComponent(dir)}`;
    const admin = new Client({ connectionString: testDatabaseServer });
    await admin.connect();
    const database = new URL(env.DATABASE_URL).pathname.slice(1);
    const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    // A read and a write on each surface; each write's marker is looked for afterwards.
    const kinds = [
      { surface: 'session', write: true, send: () => fetch(`${keel.url}/session?${q}`, json({})) },
      { surface: 'session', write: false, send: () => fetch(`${keel.url}/session?${q}`) },
      { surface: 'routing', write: true, send: (n: number) => fetch(`${keel.url}/api/middlewares`, json({ name: `terminated-${n}`, type: 'compress', config: {} })) },
      { surface: 'routing', write: false, send: () => fetch(`${keel.url}/api/middlewares`) },
      { surface: 'memory', write: true, send: (n: number) => fetch(`${keel.url}/v3/documents`, json({ content: `terminated backends note ${n}`, customId: `terminated-${n}`, containerTag: 'terminated' })) },
      { surface: 'memory', write: false, send: () => fetch(`${keel.url}/v3/search`, json({ q: 'terminated backends', containerTags: ['terminated'] })) },
    ] as const;
    const outcomes: { surface: string; write: boolean; status: number; retryAfter: string | null; body: unknown }[] = [];
    let running = true;
    let sent = 0;
    const worker = async (i: number) => {
      const kind = kinds[i % kinds.length];
      while (running) {
        const response = await kind.send(sent++);
        const text = await response.text();
        outcomes.push({ surface: kind.surface, write: kind.write, status: response.status, retryAfter: response.headers.get('retry-after'), body: text ? JSON.parse(text) : undefined });
      }
    };
    try {
      const workers = Array.from({ length: 24 }, (_, i) => worker(i));
      let terminated = 0;
      for (let round = 0; round < 12; round++) {
        await new Promise((r) => setTimeout(r, 400));
        const { rows } = await admin.query<{ n: string }>(
          'SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [database],
        );
        terminated += Number(rows[0].n);
      }
      running = false;
      await Promise.all(workers);
      expect(terminated).toBeGreaterThan(12);
      expect(outcomes.length).toBeGreaterThan(100);
      const ok = (o: (typeof outcomes)[number]) => o.status === 200 || o.status === 201;
      expect(outcomes.filter((o) => !o.write && !ok(o))).toEqual([]);
      const refused = outcomes.filter((o) => o.write && !ok(o));
      expect(refused.filter((o) => o.status !== 503 || o.retryAfter !== '1')).toEqual([]);
      for (const o of refused) {
        if (o.surface === 'session') expectSessionError(o.body, 'ServiceUnavailableError');
        if (o.surface === 'memory') expectMemoryError(o.body, { error: /database connection was lost/ });
        if (o.surface === 'routing') expectRoutingError(o.body, 503, /database connection was lost/);
      }
      // Every acknowledged write is there.
      const acknowledged = (surface: string) => outcomes.filter((o) => o.surface === surface && o.write && ok(o)).length;
      const listed = (await (await fetch(`${keel.url}/session?${q}`)).json()) as unknown[];
      expect(listed.length).toBeGreaterThanOrEqual(acknowledged('session'));
      const middlewares = (await (await fetch(`${keel.url}/api/middlewares`)).json()) as { name: string }[];
      expect(middlewares.filter((m) => m.name.startsWith('terminated-')).length).toBeGreaterThanOrEqual(acknowledged('routing'));
      const documents = (await (await fetch(`${keel.url}/v3/documents/list`, json({ containerTags: ['terminated'], limit: 1 }))).json()) as { pagination: { totalItems: number } };
      expect(documents.pagination.totalItems).toBeGreaterThanOrEqual(acknowledged('memory'));
    } catch (error) {
      const unavailable = keel.output().split('\n').filter((line) => /database unavailable|unhandled error|Unhandled/.test(line));
      throw new Error(`${String(error)}\n${unavailable.join('\n').slice(-4000)}`);
    } finally {
      running = false;
      await admin.end();
      await keel.stop();
      await cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
