import { createHmac } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Supermemory from 'supermemory';
import { freshProcessEnv, KeelProcess, spawnKeel, startKeel, TestKeel } from './support/keel';
import { memoryClient, waitForDocument } from './support/memory-fixtures';

interface Attempt {
  receiver: string;
  delivery: string;
  attempt: string;
  signature: string;
  raw: string;
  answered: number;
}

const SECRET = 'webhook-secret';
const ATTEMPTS = 4;

/**
 * Four receivers on loopback: `flaky` answers 500 to the first two attempts of each delivery,
 * `slow` holds the first attempt past Keel's timeout, `down` always answers 503, `toggle` answers
 * 503 until `state.up` is set.
 */
async function startReceivers(): Promise<{ url: string; attempts: Attempt[]; state: { up: boolean }; close: () => Promise<void> }> {
  const attempts: Attempt[] = [];
  const state = { up: false };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const receiver = (req.url ?? '').slice(1);
      const delivery = String(req.headers['x-keel-delivery']);
      const attempt = String(req.headers['x-keel-delivery-attempt']);
      const seen = attempts.filter((a) => a.receiver === receiver && a.delivery === delivery).length;
      const record = (answered: number) => attempts.push({ receiver, delivery, attempt, signature: String(req.headers['x-keel-signature']), raw, answered });
      if (receiver === 'flaky' && seen < 2) {
        record(500);
        res.writeHead(500).end('not yet');
      } else if (receiver === 'slow' && seen === 0) {
        record(0);
        setTimeout(() => res.writeHead(200).end('too late'), 6000).unref();
      } else if (receiver === 'down' || (receiver === 'toggle' && !state.up)) {
        record(503);
        res.writeHead(503).end('down');
      } else {
        record(200);
        res.writeHead(200).end('ok');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    attempts,
    state,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The attempts of one delivery: numbered 1, 2, 3… (in the order sent; a late, timed-out attempt may
 * arrive after the next one), the first `failures` seen were refused, and one was accepted.
 */
function expectRetried(tries: Attempt[], failures: number): void {
  expect(tries.map((t) => Number(t.attempt)).sort((a, b) => a - b)).toEqual(tries.map((_, i) => i + 1));
  expect(tries.length).toBeGreaterThan(failures);
  expect(tries.slice(0, failures).every((t) => t.answered !== 200)).toBe(true);
  expect(tries.some((t) => t.answered === 200)).toBe(true);
}

const EXPECTED_TRANSITIONS = ['queued', 'extracting', 'chunking', 'embedding', 'indexing', 'done'];
const transitionsOf = (list: Attempt[]) => list.map((a) => JSON.parse(a.raw) as { type: string; data: { status: string; dreamingStatus: string } });

async function until<T>(what: string, check: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    const value = check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('memory: webhook delivery with retries (signed, off the pipeline path)', () => {
  let keel: TestKeel;
  let client: Supermemory;
  let hooks: Awaited<ReturnType<typeof startReceivers>>;
  const settings = (): Record<string, string> => ({
    KEEL_INGEST_WEBHOOKS: ['flaky', 'slow', 'down'].map((r) => `${hooks.url}/${r}`).join(','),
    KEEL_INGEST_WEBHOOK_SECRET: SECRET,
    KEEL_INGEST_WEBHOOK_ATTEMPTS: String(ATTEMPTS),
    KEEL_INGEST_WEBHOOK_BACKOFF_MS: '20',
    KEEL_INGEST_WEBHOOK_TIMEOUT_MS: '2000',
  });

  beforeAll(async () => {
    hooks = await startReceivers();
    Object.assign(process.env, settings());
    keel = await startKeel({ env: { KEEL_API_KEYS: 'test-key' } });
    client = memoryClient(keel.url);
  });

  afterAll(async () => {
    for (const name of Object.keys(settings())) delete process.env[name];
    await keel?.close();
    await hooks?.close();
  });

  const accepted = (receiver: string, id: string) =>
    hooks.attempts.filter((a) => a.receiver === receiver && a.answered === 200 && (JSON.parse(a.raw) as { data: { id: string } }).data.id === id);
  const transitions = transitionsOf;
  const EXPECTED = EXPECTED_TRANSITIONS;

  it('retries a receiver that fails twice, then delivers every transition, signed, with a stable delivery id', async () => {
    const { id } = await client.add({ content: 'Webhooks should survive a flaky receiver. The pipeline keeps going.', containerTag: 'hooks', dreaming: 'instant' } as never);
    const doc = await waitForDocument(client, id);
    expect(doc).toMatchObject({ status: 'done', dreamingStatus: 'done' });

    // Deliveries run concurrently, so the last transition may be accepted while an earlier one still retries:
    // wait until every delivery the receiver has seen for this document was accepted.
    const attemptedIds = () => new Set(hooks.attempts.filter((a) => a.receiver === 'flaky' && (JSON.parse(a.raw) as { data: { id: string } }).data.id === id).map((a) => a.delivery));
    const delivered = await until('every transition accepted by the flaky receiver', () => {
      const list = accepted('flaky', id);
      const statuses = transitions(list).map((t) => t.data.status);
      const complete = EXPECTED.every((s) => statuses.includes(s)) && transitions(list).some((t) => t.data.dreamingStatus === 'done');
      return complete && attemptedIds().size === new Set(list.map((d) => d.delivery)).size && list;
    });
    for (const ok of delivered) {
      const tries = hooks.attempts.filter((a) => a.receiver === 'flaky' && a.delivery === ok.delivery);
      expectRetried(tries, 2);
      expect(new Set(tries.map((t) => t.raw)).size).toBe(1);
      expect(ok.signature).toBe(`sha256=${createHmac('sha256', SECRET).update(ok.raw).digest('hex')}`);
      expect(JSON.parse(ok.raw)).toMatchObject({ type: 'memory.document.status', data: { id, time: expect.any(String) } });
    }
    // Retries reuse the delivery id: one id per transition, however many attempts it took.
    expect(delivered).toHaveLength(attemptedIds().size);
  });

  it('retries an attempt the receiver did not answer in time', async () => {
    const { id } = await client.add({ content: 'A slow receiver holds the first attempt past the timeout.', containerTag: 'hooks', dreaming: 'instant' } as never);
    await waitForDocument(client, id);
    const delivered = await until('every transition accepted by the slow receiver', () => {
      const list = accepted('slow', id);
      return EXPECTED.every((s) => transitions(list).some((t) => t.data.status === s)) && list;
    });
    for (const ok of delivered) expectRetried(hooks.attempts.filter((a) => a.receiver === 'slow' && a.delivery === ok.delivery), 1);
  });

  it('gives up on a receiver that never accepts after the configured attempts, without holding up the others', async () => {
    const { id } = await client.add({ content: 'Nobody is home at the down receiver.', containerTag: 'hooks', dreaming: 'instant' } as never);
    await waitForDocument(client, id);
    await until('the flaky receiver to accept the done transition', () => accepted('flaky', id).some((a) => transitions([a])[0].data.dreamingStatus === 'done'));
    const deliveries = () => {
      const mine = hooks.attempts.filter((a) => a.receiver === 'down' && (JSON.parse(a.raw) as { data: { id: string } }).data.id === id);
      return [...new Set(mine.map((a) => a.delivery))].map((d) => mine.filter((a) => a.delivery === d).map((a) => a.attempt));
    };
    await until('every delivery to the down receiver to use its attempts', () => deliveries().length >= EXPECTED.length && deliveries().every((a) => a.length === ATTEMPTS));
    // Several backoff periods later, nothing more was sent: the attempt count is a bound.
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const tries of deliveries()) expect(tries).toEqual(['1', '2', '3', '4']);
  });
});

/** Needs a built server: dist/ (npm test builds it) or a private build passed as KEEL_DIST. */
describe('memory: webhook deliveries survive a crash (outbox)', () => {
  let hooks: Awaited<ReturnType<typeof startReceivers>>;
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  let server: KeelProcess | undefined;

  beforeAll(async () => {
    hooks = await startReceivers();
    ({ env, cleanup } = await freshProcessEnv({
      KEEL_API_KEYS: 'test-key',
      KEEL_LOG_LEVEL: 'error',
      KEEL_INGEST_WEBHOOKS: `${hooks.url}/toggle`,
      KEEL_INGEST_WEBHOOK_SECRET: SECRET,
      KEEL_INGEST_WEBHOOK_ATTEMPTS: '50',
      KEEL_INGEST_WEBHOOK_BACKOFF_MS: '200',
    }));
  });

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
    await cleanup?.();
    await hooks?.close();
  });

  it('delivers after kill -9 and a restart what a down receiver had not accepted', async () => {
    server = await spawnKeel(env);
    let client = memoryClient(server.url);
    const { id } = await client.add({ content: 'This document is added while the receiver is down.', containerTag: 'hooks', dreaming: 'instant' } as never);
    await waitForDocument(client, id);
    const attemptedFor = () => new Set(hooks.attempts.filter((a) => (JSON.parse(a.raw) as { data: { id: string } }).data.id === id).map((a) => a.delivery));
    await until('a refused attempt for every transition', () => attemptedFor().size >= EXPECTED_TRANSITIONS.length + 1);
    const refused = attemptedFor();
    await server.stop('SIGKILL');

    hooks.state.up = true;
    server = await spawnKeel(env);
    client = memoryClient(server.url);
    const delivered = await until('every refused delivery accepted after the restart', () => {
      const ok = hooks.attempts.filter((a) => a.answered === 200 && refused.has(a.delivery));
      return new Set(ok.map((a) => a.delivery)).size === refused.size && ok;
      // On PostgreSQL an attempt cut off by the kill is retried once its lease runs out.
    }, 30_000);
    expect(new Set(transitionsOf(delivered).map((t) => t.data.status))).toEqual(new Set(EXPECTED_TRANSITIONS));
    for (const ok of delivered) expect(ok.signature).toBe(`sha256=${createHmac('sha256', SECRET).update(ok.raw).digest('hex')}`);
    expect((await client.documents.get(id)).status).toBe('done');
  });
});
