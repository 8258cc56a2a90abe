import { rmSync } from 'node:fs';
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
});
