import { DataSource } from 'typeorm';
import { startKeel, TestKeel } from './support/keel';
import { memoryClient, waitForDocument } from './support/memory-fixtures';
import { SseClient } from './support/sse';

/** The value of a sample line `name{labels} value` in a Prometheus text exposition. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_:]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.entries(labels).every(([k, v]) => match[2]?.includes(`${k}="${v}"`));
    if (present) return Number(match[3]);
  }
  return undefined;
}

describe('observability: /metrics and readiness', () => {
  let keel: TestKeel;
  const password = 'metrics-secret';
  const basic = { authorization: `Basic ${Buffer.from(`opencode:${password}`).toString('base64')}` };

  beforeAll(async () => {
    // A document with a customId dreams KEEL_DREAM_DELAY_MS after it is done: its backlog is seen meanwhile.
    keel = await startKeel({ env: { KEEL_SERVER_PASSWORD: password, KEEL_API_KEYS: 'metrics-key', KEEL_DREAM_DELAY_MS: '4000' } });
  });
  afterAll(() => keel.close());

  it('serves Prometheus text behind the server credentials', async () => {
    expect((await fetch(`${keel.url}/metrics`)).status).toBe(401);
    expect(
      (await fetch(`${keel.url}/metrics`, { headers: { authorization: 'Bearer metrics-key' } })).status,
    ).toBe(401);
    const response = await fetch(`${keel.url}/metrics`, { headers: basic });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    for (const name of [
      'keel_sse_clients',
      'keel_pty_open',
      'keel_pipeline_queue_depth',
      'keel_pipeline_dream_backlog',
      'keel_webhook_outbox_depth',
      'keel_db_pool_connections',
    ]) {
      expect(sample(text, name)).toBeGreaterThanOrEqual(0);
    }
    expect(text).toContain('# TYPE keel_http_request_duration_seconds histogram');
    expect(text).toContain('# TYPE keel_event_relay_reconnects_total counter');
  });

  it('counts requests per surface and matched route, and open event streams', async () => {
    await fetch(`${keel.url}/session/ses_doesnotexist0000000000`, { headers: basic });
    await fetch(`${keel.url}/v3/documents/list`, {
      method: 'POST',
      headers: { authorization: 'Bearer metrics-key', 'content-type': 'application/json' },
      body: '{}',
    });
    await fetch(`${keel.url}/api/middlewares`, { headers: basic });
    const stream = await SseClient.open(`${keel.url}/global/event`, basic);
    const text = await (await fetch(`${keel.url}/metrics`, { headers: basic })).text();
    stream.close();
    const count = (labels: Record<string, string>) =>
      sample(text, 'keel_http_request_duration_seconds_count', labels);
    expect(count({ surface: 'session', route: '/session/:sessionID', status: '404' })).toBe(1);
    expect(count({ surface: 'memory', route: '/v3/documents/list', status: '200' })).toBe(1);
    expect(count({ surface: 'routing', route: '/api/middlewares', status: '200' })).toBe(1);
    expect(sample(text, 'keel_sse_clients')).toBe(1);
  });

  it('counts a document done as dream backlog until its memories are extracted', async () => {
    const client = memoryClient(keel.url, 'metrics-key');
    const backlog = async () => sample(await (await fetch(`${keel.url}/metrics`, { headers: basic })).text(), 'keel_pipeline_dream_backlog');
    const { id } = await client.add({ content: 'Ada prefers tea in the morning.', customId: 'backlog-doc' });
    expect(await waitForDocument(client, id, { dreaming: false })).toMatchObject({ status: 'done', dreamingStatus: 'dreaming' });
    expect(await backlog()).toBe(1);
    expect((await waitForDocument(client, id)).dreamingStatus).toBe('done');
    expect(await backlog()).toBe(0);
  });

  it('is ready when the database answers and every migration has run', async () => {
    const response = await fetch(`${keel.url}/global/ready`, { headers: basic });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ready: true, database: 'ok', migrations: 'done' });
  });

  it('is not ready (503, saying why) while a migration is pending', async () => {
    const dataSource = keel.keel.app.get(DataSource);
    await dataSource.query('DELETE FROM migrations WHERE id = (SELECT MAX(id) FROM migrations)');
    const response = await fetch(`${keel.url}/global/ready`, { headers: basic });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ ready: false, database: 'ok', migrations: 'pending' });
  });
});
