import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { MessageService } from '../src/messages/message.service';
import { startKeel, tempDir, testDatabaseServer, TestKeel } from './support/keel';
import { SseClient } from './support/sse';

// Replicas share events only through PostgreSQL; on SQLite there is one process by design.
const describeOnPostgres = testDatabaseServer ? describe : describe.skip;

describeOnPostgres('event relay between replicas (PostgreSQL LISTEN/NOTIFY)', () => {
  let first: TestKeel;
  let second: TestKeel;
  let directory: string;

  beforeAll(async () => {
    first = await startKeel();
    second = await startKeel({ reuse: first });
    directory = tempDir();
  });
  afterAll(async () => {
    await second.close();
    await first.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("delivers one replica's events, small and large, in order, on the other replica's streams", async () => {
    const global = await SseClient.open(`${second.url}/global/event`);
    const perDirectory = await SseClient.open(`${second.url}/event?directory=${encodeURIComponent(directory)}`);
    await fetch(`${first.url}/project/current?directory=${encodeURIComponent(directory)}`);
    const names = ['small', 'x'.repeat(20_000), 'after-large'];
    for (const name of names) {
      await fetch(`${first.url}/project/global`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
    }
    await global.next((f) => f.payload?.type === 'project.updated' && f.payload.properties.name === 'after-large');
    const received = global.ofType('project.updated').map((f) => f.payload.properties.name).filter((n) => names.includes(n));
    expect(received).toEqual(names);

    await fetch(`${first.url}/instance/dispose?directory=${encodeURIComponent(directory)}`, { method: 'POST' });
    await perDirectory.next((f) => f.type === 'server.instance.disposed');
    global.close();
    perDirectory.close();
  });

  it('relays streamed part updates so the other replica sends byte-identical frames', async () => {
    const messages = first.keel.app.get(MessageService);
    const q = `?directory=${encodeURIComponent(directory)}`;
    const { data: session } = await createOpencodeClient({ baseUrl: first.url, directory }).session.create();
    const here = await SseClient.open(`${first.url}/event${q}`);
    const there = await SseClient.open(`${second.url}/event${q}`);
    const globalThere = await SseClient.open(`${second.url}/global/event`);
    const part = { id: messages.newPartID(), sessionID: session!.id, messageID: messages.newMessageID(), type: 'text', text: '', time: { start: 1 } };
    // Escapes, non-ASCII, a delta too large for a NOTIFY payload, and enough text that whole parts would not fit either.
    const deltas = ['Hel', 'lo "quoted"\n', '\n\t', 'é😀中', 'y'.repeat(9000), ...Array.from({ length: 200 }, (_, i) => ` word${i}`)];
    let text = '';
    for (const delta of deltas) {
      text += delta;
      await messages.updatePart({ ...part, text }, { delta });
    }
    await messages.updatePart({ ...part, text, time: { start: 1, end: 2 } });
    const last = (f: any) => f.type === 'message.part.updated' && f.properties.part.time.end === 2;
    await here.next(last);
    await there.next(last);
    await globalThere.next((f) => last(f.payload));
    const partFrames = (raw: string) => raw.split('\n\n').filter((frame) => frame.includes('"type":"message.part.updated"'));
    expect(partFrames(here.raw)).toHaveLength(deltas.length + 1);
    expect(partFrames(there.raw)).toEqual(partFrames(here.raw));
    const globalFrames = partFrames(globalThere.raw).map((frame) => JSON.parse(frame.slice('data: '.length)));
    expect(globalFrames.map((f) => f.directory)).toEqual(Array(deltas.length + 1).fill(directory));
    expect(globalFrames.map((f) => JSON.stringify(f.payload))).toEqual(partFrames(here.raw).map((frame) => frame.slice('data: '.length)));
    here.close();
    there.close();
    globalThere.close();
  });

  it("disposes the other replicas' instances of a directory too (their config is read again)", async () => {
    const project = tempDir();
    const configOf = async (keel: TestKeel) => {
      const response = await fetch(`${keel.url}/config?directory=${encodeURIComponent(project)}`);
      return ((await response.json()) as { username?: string }).username;
    };
    writeFileSync(join(project, 'opencode.json'), JSON.stringify({ username: 'before' }));
    expect(await configOf(second)).toBe('before');
    writeFileSync(join(project, 'opencode.json'), JSON.stringify({ username: 'after' }));
    expect(await configOf(second)).toBe('before'); // cached by the instance until it is disposed

    const streamOnSecond = await SseClient.open(`${second.url}/event?directory=${encodeURIComponent(project)}`);
    await fetch(`${first.url}/instance/dispose?directory=${encodeURIComponent(project)}`, { method: 'POST' });
    await streamOnSecond.next((f) => f.type === 'server.instance.disposed');
    let seen = await configOf(second);
    for (let attempt = 0; seen !== 'after' && attempt < 100; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = await configOf(second);
    }
    expect(seen).toBe('after');
    expect(streamOnSecond.ofType('server.instance.disposed')).toHaveLength(1);
    streamOnSecond.close();
    rmSync(project, { recursive: true, force: true });
  });
});

describeOnPostgres('event relay of a replica alone', () => {
  let solo: TestKeel;
  let listener: Client;
  const notified: string[] = [];
  const sessionEvents = () => notified.filter((payload) => payload.includes('"session.created"'));
  const create = async (keel: TestKeel) => {
    const response = await fetch(`${keel.url}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    return ((await response.json()) as { id: string }).id;
  };

  beforeAll(async () => {
    solo = await startKeel();
    // A client on the channel that is no replica: it hears what is sent, and announces nothing.
    listener = new Client({ connectionString: solo.env.DATABASE_URL });
    await listener.connect();
    listener.on('notification', (message) => notified.push(message.payload ?? ''));
    await listener.query('LISTEN keel_events');
  });
  afterAll(async () => {
    await listener.end();
    await solo.close();
  });

  it('sends no event through the database while no other replica is heard, and relays again as soon as one starts', async () => {
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // past the time a new replica assumes company
    for (let i = 0; i < 3; i++) await create(solo);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(sessionEvents()).toEqual([]);
    expect(notified.some((payload) => payload.includes('"head":'))).toBe(true); // it still announces itself

    const second = await startKeel({ reuse: solo });
    try {
      const stream = await SseClient.open(`${second.url}/global/event`);
      const id = await create(solo);
      await stream.next((f) => f.payload?.type === 'session.created' && f.payload.properties.info.id === id);
      // The second replica's frame and this listener's notification come over two connections: the
      // frame may be read first (a CI failure on PostgreSQL), so the notification gets 2 s to follow.
      const relayed = () => sessionEvents().filter((payload) => payload.includes(id));
      for (let waited = 0; relayed().length === 0 && waited < 2_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(relayed()).toHaveLength(1);
      stream.close();
    } finally {
      await second.close();
    }
  });
});
