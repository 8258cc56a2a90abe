import { connect, Socket } from 'node:net';
import { rmSync } from 'node:fs';
import { startKeel, tempDir, TestKeel } from './support/keel';
import { SseClient } from './support/sse';

describe('event streams: heartbeats and slow clients', () => {
  let keel: TestKeel;

  beforeAll(async () => {
    keel = await startKeel({ env: { KEEL_HEARTBEAT_MS: '100', KEEL_SSE_MAX_BUFFER: '65536' } });
  });
  afterAll(() => keel.close());

  it('sends data-only heartbeat frames on both streams', async () => {
    const events = await SseClient.open(`${keel.url}/event`);
    const global = await SseClient.open(`${keel.url}/global/event`);
    await events.next((f) => f.type === 'server.heartbeat');
    await global.next((f) => f.payload?.type === 'server.heartbeat');
    expect(events.raw).not.toMatch(/^(event|id|retry):/m);
    events.close();
    global.close();
  });

  it('drops a client that stops reading, without stalling the bus or other clients', async () => {
    const url = new URL(keel.url);
    // A raw client that sends the request and then never reads.
    const stalled: Socket = connect(Number(url.port), url.hostname);
    await new Promise((resolve) => stalled.once('connect', resolve));
    stalled.write(`GET /global/event HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
    stalled.pause();
    const closed = new Promise((resolve) => stalled.once('close', resolve));
    stalled.on('error', () => undefined);

    const plain = tempDir();
    await fetch(`${keel.url}/project/current?directory=${encodeURIComponent(plain)}`); // creates project `global`
    rmSync(plain, { recursive: true });
    const reader = await SseClient.open(`${keel.url}/global/event`);
    const name = 'x'.repeat(32 * 1024);
    const total = 200; // ~6.5 MB of frames: far past the 64 KB bound plus socket buffers
    for (let i = 0; i < total; i++) {
      const response = await fetch(`${keel.url}/project/global`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `${i}-${name}` }),
      });
      expect(response.status).toBe(200);
    }
    await reader.next((f) => f.payload?.type === 'project.updated' && String(f.payload.properties.name).startsWith(`${total - 1}-`));
    const names = reader.ofType('project.updated').map((f) => Number(String(f.payload.properties.name).split('-')[0]));
    expect(names).toEqual([...Array(total).keys()]);
    // Had the server kept it, the stream would go on (heartbeats) and never close once read.
    stalled.resume();
    await closed;
    reader.close();
    stalled.destroy();
  });
});
