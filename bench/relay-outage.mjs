#!/usr/bin/env node
// Event relay through a lost database: two replicas on one PostgreSQL database, a client on B's
// /global/event, A creating sessions at a steady rate; then every Keel connection to the database is
// terminated (pg_terminate_backend). Prints how long B's client waited for the first event published
// after the termination, and how many of A's events (created sessions) B never delivered.
//   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/relay-outage.mjs
// Knobs: BENCH_ROUNDS (5 outages), BENCH_RATE (50 sessions/s).
import { createRequire } from 'node:module';
import { machineLine, percentile } from './lib/figures.mjs';
import { freshDatabase, startKeel } from './lib/keel-server.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const RATE = Number(process.env.BENCH_RATE ?? 50);
if (!process.env.DATABASE_URL?.startsWith('postgres'))
  throw new Error('set DATABASE_URL=postgres://… (the relay runs on PostgreSQL only)');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const database = await freshDatabase();
const a = await startKeel({ databaseUrl: database.url, onOutput: () => {} });
const b = await startKeel({ databaseUrl: database.url, onOutput: () => {} });

/** Session ids B's client has seen, and when. */
const seenAt = new Map();
const controller = new AbortController();
const stream = (async () => {
  const response = await fetch(`${b.url}/global/event`, { signal: controller.signal });
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let i;
    while ((i = buffer.indexOf('\n\n')) >= 0) {
      const frame = JSON.parse(buffer.slice(6, i));
      buffer = buffer.slice(i + 2);
      if (frame.payload?.type === 'session.created')
        seenAt.set(frame.payload.properties.info.id, performance.now());
    }
  }
})().catch(() => {});
await sleep(500);

async function terminate() {
  const admin = new Client({ connectionString: database.url });
  await admin.connect();
  const { rowCount } = await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  await admin.end();
  return rowCount;
}

const created = []; // { id, at }
let failed = 0;
let stopCreating = false;
const creator = (async () => {
  while (!stopCreating) {
    const at = performance.now();
    const response = await fetch(`${a.url}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }).catch(() => undefined);
    if (response?.ok) created.push({ id: (await response.json()).id, at });
    else failed++;
    await sleep(Math.max(0, 1000 / RATE - (performance.now() - at)));
  }
})();

const recoveries = [];
for (let round = 0; round < ROUNDS; round++) {
  await sleep(1500);
  const cutAt = performance.now();
  const killed = await terminate();
  // Wait for the first session created after the cut to reach B's client.
  let recovered;
  while (recovered === undefined && performance.now() - cutAt < 30_000) {
    const after = created.find((c) => c.at >= cutAt && seenAt.has(c.id));
    if (after) recovered = seenAt.get(after.id) - cutAt;
    else await sleep(5);
  }
  recoveries.push(recovered ?? Infinity);
  console.log(
    `outage ${round + 1}: ${killed} connections terminated; B's client saw new events again after ${recovered?.toFixed(0) ?? '> 30000'} ms`,
  );
}
stopCreating = true;
await creator;
await sleep(4000); // resends and gap waits settle
const lost = created.filter((c) => !seenAt.has(c.id)).length;
const sorted = [...recoveries].sort((x, y) => x - y);
console.log(`\nmachine: ${machineLine()}`);
console.log(
  `date: ${new Date().toISOString()}   command: DATABASE_URL=… node bench/relay-outage.mjs (rounds ${ROUNDS}, ${RATE} sessions/s)`,
);
console.log(
  `time to see events again after the termination: p50 ${percentile(sorted, 50).toFixed(0)} ms, max ${sorted.at(-1).toFixed(0)} ms (target < 2000 ms)`,
);
console.log(
  `events lost: ${lost} of ${created.length} sessions created on A (target 0); requests A refused during the outages: ${failed}`,
);
controller.abort();
await stream;
await Promise.all([a.stop(), b.stop()]);
await database.drop();
