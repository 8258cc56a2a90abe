import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { freshProcessEnv, KeelProcess, spawnKeel, tempDir, testDatabaseServer } from './support/keel';
import { DEPLOY_NGINX, Nginx, nginxBinary, startNginx, withPorts } from './support/nginx';
import { ScriptedProvider } from './support/scripted-provider';
import { SseClient } from './support/sse';

// deploy/nginx/ used verbatim: http.conf and keel.conf are included as they are; an upstream file is
// copied with its ports (4096, 4097) replaced by the ports the test's Keel processes listen on.
function startKeelNginx(upstreamFile: string, ports: number[]): Promise<Nginx> {
  return startNginx((prefix, port) => {
    const upstream = withPorts(readFileSync(join(DEPLOY_NGINX, upstreamFile), 'utf8'), { 4096: ports[0], 4097: ports[1] });
    writeFileSync(join(prefix, 'upstream.conf'), upstream);
    return `  include ${DEPLOY_NGINX}/http.conf;
  include ${prefix}/upstream.conf;
  server {
    listen 127.0.0.1:${port};
    access_log ${prefix}/logs/access.log keel;
    include ${DEPLOY_NGINX}/keel.conf;
  }`;
  }, '/global/health');
}

const portOf = (keel: KeelProcess) => Number(new URL(keel.url).port);

/** `keel_sse_clients` as the replica itself reports it. */
async function openStreams(keel: KeelProcess): Promise<number> {
  const text = await (await fetch(`${keel.url}/metrics`)).text();
  return Number(/^keel_sse_clients (\d+)/m.exec(text)?.[1] ?? NaN);
}

describe('deploy/nginx in front of one Keel process', () => {
  let scripted: ScriptedProvider;
  let dir: string;
  let keel: KeelProcess;
  let cleanup: () => Promise<void> = () => Promise.resolve();
  let nginx: Nginx;
  let events: SseClient;

  beforeAll(async () => {
    nginxBinary();
    scripted = await ScriptedProvider.start();
    dir = tempDir('keel-deploy-');
    writeFileSync(join(dir, 'opencode.json'), JSON.stringify(scripted.config()));
    const fresh = await freshProcessEnv({ KEEL_TRUST_PROXY: 'loopback', KEEL_LOG_LEVEL: 'error' });
    cleanup = fresh.cleanup;
    keel = await spawnKeel(fresh.env);
    nginx = await startKeelNginx('upstream-single.conf', [portOf(keel)]);
    events = await SseClient.open(`${nginx.url}/event?directory=${encodeURIComponent(dir)}`);
  });

  afterAll(async () => {
    events?.close();
    await nginx?.stop();
    await keel?.stop();
    await cleanup();
    await scripted?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const client = () => createOpencodeClient({ baseUrl: nginx.url, directory: dir });

  it('streams session.created through nginx before the POST that caused it has answered', async () => {
    const started = performance.now();
    let answeredAt = 0;
    const created = client()
      .session.create({ title: 'through nginx' })
      .then((result) => ((answeredAt = performance.now()), result));
    const event = await events.next<any>((e) => e.type === 'session.created');
    const seenAt = performance.now();
    const { data: session } = await created;
    expect(event.properties.info.id).toBe(session!.id);
    const latency = seenAt - started;
    console.log(`SSE through nginx: session.created ${latency.toFixed(1)} ms after the POST was sent (response after ${(answeredAt - started).toFixed(1)} ms)`);
    // Buffered, the frame would wait for nginx's buffer to fill or the stream to end; unbuffered it arrives
    // with the POST's own response. The 50 ms is met unloaded; a loaded 2-core CI box gets a margin.
    expect(seenAt).toBeLessThan(answeredAt + 50);
    expect(latency).toBeLessThan(1000);
  });

  it('echoes through a PTY WebSocket upgraded by nginx', async () => {
    const created = await fetch(`${nginx.url}/pty?directory=${encodeURIComponent(dir)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'cat' }),
    });
    expect(created.status).toBe(200);
    const pty = (await created.json()) as { id: string };
    const socket = new WebSocket(`${nginx.url.replace(/^http/, 'ws')}/pty/${pty.id}/connect?directory=${encodeURIComponent(dir)}`);
    let received = '';
    socket.on('message', (data, isBinary) => {
      if (!isBinary) received += (data as Buffer).toString('utf8');
    });
    await new Promise((resolve, reject) => (socket.once('open', resolve), socket.once('error', reject)));
    socket.send('hello through nginx\n');
    const deadline = Date.now() + 10_000;
    while (!/hello through nginx[\s\S]*hello through nginx/.test(received)) {
      if (Date.now() > deadline) throw new Error(`no echo, got ${JSON.stringify(received)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    socket.close();
    await client().pty.remove({ ptyID: pty.id });
  });

  it('answers a prompt from the scripted model through nginx, and keeps ?auth_token= out of the access log', async () => {
    scripted.reply({ steps: [{ text: 'Answered ' }, { delayMs: 200 }, { text: 'behind nginx.' }] });
    const { data: session } = await client().session.create({});
    const { data: reply, response } = await client().session.prompt({ sessionID: session!.id, parts: [{ type: 'text', text: 'hello?' }] });
    expect(response.status).toBe(200);
    expect(reply!.parts.filter((p: any) => p.type === 'text').map((p: any) => p.text)).toEqual(['Answered behind nginx.']);
    await fetch(`${nginx.url}/global/health?auth_token=c2VjcmV0OnBhc3N3b3Jk`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const log = nginx.accessLog();
    expect(log).toContain('/global/health');
    expect(log).toContain(`/session/${session!.id}/message`);
    expect(log).not.toContain('auth_token');
    expect(log).not.toContain('c2VjcmV0OnBhc3N3b3Jk');
  });
});

// Replicas share state through PostgreSQL; SQLite is one process by design, so there is no second replica.
(testDatabaseServer ? describe : describe.skip)('deploy/nginx in front of two Keel replicas on PostgreSQL', () => {
  let dir: string;
  let replicas: KeelProcess[] = [];
  let cleanup: () => Promise<void> = () => Promise.resolve();
  let nginx: Nginx;

  beforeAll(async () => {
    nginxBinary();
    dir = tempDir('keel-deploy-replicas-');
    const fresh = await freshProcessEnv({ KEEL_TRUST_PROXY: 'loopback', KEEL_LOG_LEVEL: 'error' });
    cleanup = fresh.cleanup;
    const first = await spawnKeel({ ...fresh.env, KEEL_DATA_DIR: join(fresh.env.KEEL_DATA_DIR, 'a') });
    const second = await spawnKeel({ ...fresh.env, KEEL_DATA_DIR: join(fresh.env.KEEL_DATA_DIR, 'b') });
    replicas = [first, second];
    nginx = await startKeelNginx('upstream-replicas.conf', replicas.map(portOf));
  });

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all(replicas.map((r) => r.stop()));
    await cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('an event created on one replica reaches a client whose stream nginx connected to the other', async () => {
    const query = `?directory=${encodeURIComponent(dir)}`;
    const streams: SseClient[] = [];
    // nginx balances streams over the replicas; open them until each replica holds one.
    for (let i = 0; i < 6; i++) {
      streams.push(await SseClient.open(`${nginx.url}/event${query}`));
      const counts = await Promise.all(replicas.map(openStreams));
      if (counts.every((n) => n >= 1)) break;
    }
    try {
      expect((await Promise.all(replicas.map(openStreams))).every((n) => n >= 1)).toBe(true);
      // The session is created through nginx on whichever replica; every stream, on both replicas, sees it.
      const { data: session } = await createOpencodeClient({ baseUrl: nginx.url, directory: dir }).session.create({ title: 'replicated' });
      for (const stream of streams) {
        const event = await stream.next<any>((e) => e.type === 'session.created' && e.properties.info.id === session!.id, 5_000);
        expect(event.properties.info.title).toBe('replicated');
      }
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it('keeps a terminal and its WebSocket on one replica', async () => {
    const query = `?directory=${encodeURIComponent(dir)}`;
    for (let i = 0; i < 4; i++) {
      const created = await fetch(`${nginx.url}/pty${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ command: 'cat' }),
      });
      const pty = (await created.json()) as { id: string };
      const socket = new WebSocket(`${nginx.url.replace(/^http/, 'ws')}/pty/${pty.id}/connect${query}`);
      let received = '';
      socket.on('message', (data, isBinary) => {
        if (!isBinary) received += (data as Buffer).toString('utf8');
      });
      await new Promise((resolve, reject) => (socket.once('open', resolve), socket.once('error', reject)));
      socket.send(`echo ${i}\n`);
      const deadline = Date.now() + 10_000;
      while (!received.includes(`echo ${i}`)) {
        if (Date.now() > deadline) throw new Error(`no echo from terminal ${i}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      socket.close();
      expect((await fetch(`${nginx.url}/pty/${pty.id}${query}`, { method: 'DELETE' })).status).toBe(200);
    }
  });
});
