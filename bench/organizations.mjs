#!/usr/bin/env node
// What an organization key costs per memory request: `GET /v3/settings` (the lightest memory route)
// with a KEEL_API_KEYS key (compared in memory) and with an organization key (one database read on the
// digest's unique index), one request at a time and BENCH_PARALLEL at once; then `/v3/search` latency
// in an organization of BENCH_DOCS documents while another organization holds BENCH_OTHER_DOCS
// sharing the same words (the filter's cost on the shared full-text index).
//   npm run build && node bench/organizations.mjs
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/organizations.mjs
// Knobs: BENCH_REQUESTS (2000), BENCH_PARALLEL (8), BENCH_DOCS (200), BENCH_OTHER_DOCS (2000), BENCH_QUERIES (200).
import { machineLine, percentile } from './lib/figures.mjs';
import { freshDatabase, startKeel } from './lib/keel-server.mjs';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 8);
const DOCS = Number(process.env.BENCH_DOCS ?? 200);
const OTHER_DOCS = Number(process.env.BENCH_OTHER_DOCS ?? 2000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
// No server password (the bench server is on loopback): the admin API needs none there.
const ENV_KEY = 'bench-env-key';

async function json(url, init) {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
}

const adminPost = (url, body) => json(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function timed(count, parallel, request) {
  const times = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        next++;
        const t = performance.now();
        await request();
        times.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  return { rps: Math.round(count / seconds), p50: percentile(times, 50).toFixed(2), p99: percentile(times, 99).toFixed(2) };
}

const WORDS = 'harbor lantern granite willow copper meadow falcon ember quartz thistle cobalt orchard'.split(' ');
const text = (i) => `Note ${i}: ${Array.from({ length: 40 }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]).join(' ')}.`;

async function fill(url, key, count, prefix) {
  for (let i = 0; i < count; i += 500) {
    const documents = Array.from({ length: Math.min(500, count - i) }, (_, j) => ({ content: text(i + j), customId: `${prefix}-${i + j}` }));
    await json(`${url}/v3/documents/batch`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ containerTag: 'bench', documents }) });
  }
}

async function drained(url, key) {
  for (;;) {
    const { totalCount } = await json(`${url}/v3/documents/processing`, { headers: { 'x-api-key': key } });
    if (totalCount === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const database = await freshDatabase();
const keel = await startKeel({ databaseUrl: database.url, env: { KEEL_API_KEYS: ENV_KEY } });
try {
  const small = await adminPost(`${keel.url}/keel/organizations`, { name: 'bench small' });
  const big = await adminPost(`${keel.url}/keel/organizations`, { name: 'bench big' });
  const smallKey = (await adminPost(`${keel.url}/keel/organizations/${small.id}/keys`, { name: 'bench' })).key;
  const bigKey = (await adminPost(`${keel.url}/keel/organizations/${big.id}/keys`, { name: 'bench' })).key;
  const settings = (key) => () => json(`${keel.url}/v3/settings`, { headers: { 'x-api-key': key } });

  console.log(`engine: ${database.url ? 'PostgreSQL' : 'SQLite'}; ${machineLine()}`);
  // Warm-up (JIT, connection pool, page cache) with both keys before anything is measured.
  await timed(REQUESTS / 2, PARALLEL, settings(ENV_KEY));
  await timed(REQUESTS / 2, PARALLEL, settings(smallKey));
  for (const parallel of [1, PARALLEL]) {
    const env = await timed(REQUESTS, parallel, settings(ENV_KEY));
    const org = await timed(REQUESTS, parallel, settings(smallKey));
    console.log(`GET /v3/settings ×${REQUESTS}, ${parallel} at once: KEEL_API_KEYS key ${env.rps} req/s (p50 ${env.p50} ms, p99 ${env.p99} ms); organization key ${org.rps} req/s (p50 ${org.p50} ms, p99 ${org.p99} ms)`);
  }

  await fill(keel.url, bigKey, OTHER_DOCS, 'big');
  await fill(keel.url, smallKey, DOCS, 'small');
  await drained(keel.url, bigKey);
  await drained(keel.url, smallKey);
  let hits = 0;
  const search = (key) => async () => {
    const answer = await json(`${keel.url}/v3/search`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ q: WORDS[Math.floor(Math.random() * WORDS.length)], containerTag: 'bench', limit: 10 }) });
    hits += answer.results.length;
  };
  const inSmall = await timed(QUERIES, 1, search(smallKey));
  const smallHits = hits;
  hits = 0;
  const inBig = await timed(QUERIES, 1, search(bigKey));
  console.log(
    `POST /v3/search ×${QUERIES} (one word, container 'bench'): organization of ${DOCS} documents beside one of ${OTHER_DOCS}: p50 ${inSmall.p50} ms, p99 ${inSmall.p99} ms, ${(smallHits / QUERIES).toFixed(1)} results a query; ` +
      `the ${OTHER_DOCS}-document organization: p50 ${inBig.p50} ms, p99 ${inBig.p99} ms, ${(hits / QUERIES).toFixed(1)} results a query`,
  );
} finally {
  await keel.stop();
  await database.drop();
}
