import { rmSync } from 'node:fs';
import WebSocket from 'ws';
import { freshProcessEnv, KeelProcess, spawnKeel, tempDir } from './support/keel';
import { SseClient } from './support/sse';

/**
 * The request log of the built server as an operator reads it (stdout, JSON lines), behind a
 * trusted proxy on loopback: client address and forwarded protocol/host, query strings without
 * credentials, event streams and WebSocket upgrades logged when they open and when they end, and
 * `KEEL_LOG_LEVEL=debug` adding each request's arrival with its headers minus credentials.
 */

const PASSWORD = 'pw-log-secret';
const token = Buffer.from(`opencode:${PASSWORD}`).toString('base64');
const basic = `Basic ${token}`;
const proxied = { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'keel.example.org' };

type Line = Record<string, unknown>;

describe('request log of the built server (debug level, behind a trusted proxy)', () => {
  let server: KeelProcess;
  let cleanup = (): Promise<void> => Promise.resolve();
  let dir: string;

  const lines = (): Line[] =>
    server
      .output()
      .split('\n')
      .slice(0, -1) // complete lines only
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line);

  /** The log travels through the child's stdout pipe, which may deliver it after the response. */
  async function logged(predicate: (line: Line) => boolean): Promise<Line> {
    for (let i = 0; i < 100; i++) {
      const line = lines().find(predicate);
      if (line) return line;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no such log line in:\n${server.output()}`);
  }

  beforeAll(async () => {
    const fresh = await freshProcessEnv({ KEEL_LOG_LEVEL: 'debug', KEEL_TRUST_PROXY: 'loopback', KEEL_SERVER_PASSWORD: PASSWORD });
    cleanup = fresh.cleanup;
    server = await spawnKeel(fresh.env);
    dir = tempDir('keel-request-log-');
  });

  afterAll(async () => {
    await server?.stop();
    await cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('warns at start that the memory API needs no key when KEEL_API_KEYS is unset', async () => {
    const warning = await logged((l) => l.context === 'Bootstrap' && /KEEL_API_KEYS/.test(String(l.msg)));
    expect(warning).toMatchObject({ level: 40, msg: expect.stringMatching(/memory API .*needs no key.*loopback/) });
  });

  it('logs the client address the proxy reports, the query with auth_token redacted, and never a credential', async () => {
    const response = await fetch(`${server.url}/global/health?x=1&auth_token=${token}`, {
      headers: { ...proxied, 'x-request-id': 'log-health', 'x-api-key': 'not-for-logs' },
    });
    expect(response.status).toBe(200);
    const done = await logged((l) => l.requestId === 'log-health' && l.status === 200);
    expect(done).toMatchObject({
      msg: 'request',
      method: 'GET',
      path: '/global/health',
      query: 'x=1&auth_token=[redacted]',
      ip: '203.0.113.7',
      ms: expect.any(Number),
    });
    const arrival = await logged((l) => l.requestId === 'log-health' && l.level === 20);
    expect(arrival).toMatchObject({
      msg: 'request',
      ip: '203.0.113.7',
      protocol: 'https',
      host: 'keel.example.org',
      headers: expect.objectContaining({ 'x-api-key': '[redacted]', 'x-forwarded-for': '203.0.113.7' }),
    });
    // The key as the query parser reads it, however it is spelled.
    expect((await fetch(`${server.url}/global/health?auth%5Ftoken=${token}`, { headers: { 'x-request-id': 'log-encoded' } })).status).toBe(200);
    expect(await logged((l) => l.requestId === 'log-encoded' && l.status === 200)).toMatchObject({ query: 'auth%5Ftoken=[redacted]' });
    await fetch(`${server.url}/global/health`, { headers: { authorization: basic, 'x-request-id': 'log-basic' } });
    expect(await logged((l) => l.requestId === 'log-basic' && l.level === 20)).toMatchObject({
      headers: expect.objectContaining({ authorization: '[redacted]' }),
    });
    expect(server.output()).not.toContain(token);
    expect(server.output()).not.toContain('not-for-logs');
  });

  it('logs an event stream when it opens and, with its duration, when it closes', async () => {
    const events = await SseClient.open(`${server.url}/event?directory=${encodeURIComponent(dir)}&auth_token=${token}`, {
      ...proxied,
      'x-request-id': 'log-stream',
    });
    const opened = await logged((l) => l.requestId === 'log-stream' && l.msg === 'stream opened');
    expect(opened).toMatchObject({ method: 'GET', path: '/event', query: `directory=${encodeURIComponent(dir)}&auth_token=[redacted]`, ip: '203.0.113.7', status: 200 });
    expect(lines().some((l) => l.requestId === 'log-stream' && l.msg === 'stream closed')).toBe(false);
    await new Promise((r) => setTimeout(r, 200));
    events.close();
    const closed = await logged((l) => l.requestId === 'log-stream' && l.msg === 'stream closed');
    expect(closed).toMatchObject({ path: '/event', ip: '203.0.113.7', status: 200 });
    expect(closed.ms).toBeGreaterThanOrEqual(150);
  });

  it('logs a terminal WebSocket when it opens and when it closes, and a refused upgrade with its status', async () => {
    const created = await fetch(`${server.url}/pty?directory=${encodeURIComponent(dir)}`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/json' },
      body: JSON.stringify({ command: '/bin/sh', args: ['-c', 'sleep 30'] }),
    });
    const { id } = (await created.json()) as { id: string };
    const path = `/pty/${id}/connect`;
    const url = `${server.url.replace(/^http/, 'ws')}${path}?directory=${encodeURIComponent(dir)}&auth_token=${token}`;
    const socket = new WebSocket(url, { headers: { ...proxied, 'x-request-id': 'log-ws' } });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const opened = await logged((l) => l.path === path && l.msg === 'websocket opened');
    expect(opened).toMatchObject({ method: 'GET', status: 101, ip: '203.0.113.7', query: `directory=${encodeURIComponent(dir)}&auth_token=[redacted]`, requestId: 'log-ws' });
    await new Promise((r) => setTimeout(r, 100));
    socket.close();
    const closed = await logged((l) => l.path === path && l.msg === 'websocket closed');
    expect(closed).toMatchObject({ requestId: 'log-ws', status: 101 });
    expect(closed.ms).toBeGreaterThanOrEqual(50);

    const refused = new WebSocket(`${server.url.replace(/^http/, 'ws')}${path}?directory=${encodeURIComponent(dir)}`);
    await new Promise((resolve) => refused.once('error', resolve).once('unexpected-response', resolve));
    refused.terminate();
    expect(await logged((l) => l.path === path && l.status === 401)).toMatchObject({ msg: 'request', ip: '127.0.0.1' });
    expect(server.output()).not.toContain(token);
  });
});
