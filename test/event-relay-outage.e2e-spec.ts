import { Client } from 'pg';
import { EventBus } from '../src/events/event-bus.service';
import { startKeel, testDatabaseServer, TestKeel } from './support/keel';
import { SseClient } from './support/sse';

const describeOnPostgres = testDatabaseServer ? describe : describe.skip;

/** Ends every connection to the database but this one's, as a failover or a DBA would. */
async function terminateBackends(databaseUrl: string): Promise<number> {
  const admin = new Client({ connectionString: databaseUrl });
  await admin.connect();
  const { rowCount } = await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  await admin.end();
  return rowCount ?? 0;
}

describeOnPostgres('event relay after its database connections are terminated', () => {
  let first: TestKeel;
  let second: TestKeel;

  beforeAll(async () => {
    first = await startKeel();
    second = await startKeel({ reuse: first });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('reconnects and delivers every event published during and after the outage, in order, once', async () => {
    const stream = await SseClient.open(`${second.url}/global/event`);
    const bus = first.keel.app.get(EventBus);
    const seen = (n: number) => (f: any) => f.payload?.type === 'test.outage' && f.payload.properties.n === n;
    bus.publishGlobal('test.outage', { n: 0 });
    await stream.next(seen(0));

    expect(await terminateBackends(first.env.DATABASE_URL)).toBeGreaterThan(0);
    for (let n = 1; n <= 40; n++) {
      bus.publishGlobal('test.outage', { n });
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await stream.next(seen(40), 15_000);
    const received = stream.frames
      .filter((f: any) => f.payload?.type === 'test.outage')
      .map((f: any) => f.payload.properties.n);
    expect(received).toEqual(Array.from({ length: 41 }, (_, n) => n));

    // And the other way: the replica whose listener was cut publishes, the first sees it.
    const back = await SseClient.open(`${first.url}/global/event`);
    second.keel.app.get(EventBus).publishGlobal('test.outage', { n: 41 });
    await back.next(seen(41));
    stream.close();
    back.close();
  });
});
