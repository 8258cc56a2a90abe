import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freshProcessEnv, spawnKeel } from './support/keel';
import { SseClient } from './support/sse';

const dist = process.env.KEEL_DIST ?? join(__dirname, '..', 'dist');

describe('the server process: start, logs, security defaults, graceful shutdown', () => {
  it('refuses to listen outside loopback without credentials', async () => {
    const { env, cleanup } = await freshProcessEnv({ KEEL_HOST: '0.0.0.0' });
    const child = spawn(process.execPath, [join(dist, 'main.js')], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/KEEL_SERVER_PASSWORD/);
    await cleanup();
  });

  it('requires the server password when one is set (header or ?auth_token=)', async () => {
    const { env, cleanup } = await freshProcessEnv({ KEEL_SERVER_PASSWORD: 's3cret' });
    const keel = await spawnKeel(env);
    try {
      const anonymous = await fetch(`${keel.url}/global/health`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic/);
      const token = Buffer.from('opencode:s3cret').toString('base64');
      expect((await fetch(`${keel.url}/global/health`, { headers: { authorization: `Basic ${token}` } })).status).toBe(200);
      expect((await fetch(`${keel.url}/global/health?auth_token=${token}`)).status).toBe(200);
      const wrong = Buffer.from('opencode:nope').toString('base64');
      expect((await fetch(`${keel.url}/global/health?auth_token=${wrong}`)).status).toBe(401);
      const preflight = await fetch(`${keel.url}/session`, {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    } finally {
      await keel.stop();
      await cleanup();
    }
  });

  it('logs JSON lines with request ids, and shuts down gracefully with open event streams', async () => {
    const { env, cleanup } = await freshProcessEnv({ KEEL_LOG_LEVEL: 'info' });
    const keel = await spawnKeel(env);
    const response = await fetch(`${keel.url}/global/health`, { headers: { 'x-request-id': 'req-123' } });
    expect(response.headers.get('x-request-id')).toBe('req-123');
    const events = await SseClient.open(`${keel.url}/event`);
    const global = await SseClient.open(`${keel.url}/global/event`);
    const started = Date.now();
    const code = await keel.stop('SIGTERM');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(code === 0 || code === null).toBe(true);
    await events.done;
    await global.done;
    expect(events.closed && global.closed).toBe(true);
    const lines = keel
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l.requestId === 'req-123' && l.path === '/global/health' && l.status === 200)).toBeDefined();
    await cleanup();
  });
});
