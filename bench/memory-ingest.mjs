#!/usr/bin/env node
// Memory surface benchmark: batch ingestion of ~2 KB text documents, time until all are `done`,
// RSS during ingestion, then search latency (v3 chunk search, v4 hybrid) with ~100k chunks stored.
//   KEEL_DIST=$PWD/.dist-mem node bench/memory-ingest.mjs            (SQLite in a temp data dir)
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test … node bench/memory-ingest.mjs   (fresh PostgreSQL database)
// Knobs: BENCH_DOCS (10000), BENCH_CHUNKS (100000), BENCH_BATCH (500), BENCH_PARALLEL (4), BENCH_QUERIES (400).
import { spawn, execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const dist = process.env.KEEL_DIST ?? join(import.meta.dirname, '..', 'dist');
const DOCS = Number(process.env.BENCH_DOCS ?? 10_000);
const CHUNK_TARGET = Number(process.env.BENCH_CHUNKS ?? 100_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 500);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 4);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 400);
const KEY = 'bench-key';

// A 5,000-word vocabulary drawn with a Zipf distribution (s = 1), like natural text: a few words
// are everywhere, most are rare. (A tiny uniform vocabulary would put every query word in every chunk.)
const SYLLABLES = 'ka lo mi ne ru sa te vo zi pa de fu gi ho ju ba ce di fo ga hi ko lu ma no pe ri so tu va we xi yo za'.split(' ');
const VOCAB = Array.from({ length: 5000 }, (_, i) => {
  let n = i + 7;
  let w = '';
  do {
    w += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  } while (n > 0);
  return w;
});
const CUMULATIVE = [];
VOCAB.reduce((sum, _, r) => (CUMULATIVE[r] = sum + 1 / (r + 1)), 0);
// mulberry32: a deterministic 32-bit generator (plain float LCG arithmetic would lose precision and cycle).
let seed = 42;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const word = () => {
  const x = rand() * CUMULATIVE[CUMULATIVE.length - 1];
  let lo = 0;
  let hi = CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUMULATIVE[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCAB[lo];
};
const queryWord = () => VOCAB[Math.floor(rand() * 2000)];
const sentence = () => {
  const n = 8 + Math.floor(rand() * 10);
  const words = Array.from({ length: n }, word);
  return words[0][0].toUpperCase() + words.join(' ').slice(1) + '.';
};
function documentText(i) {
  let text = `Record ${i}.`;
  while (text.length < 2000) text += ' ' + sentence();
  return text;
}

async function freshDatabase() {
  if (!process.env.DATABASE_URL) return {};
  const { Client } = require(join(import.meta.dirname, '..', 'node_modules', 'pg'));
  const admin = new Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const name = `keel_bench_${Date.now()}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const again = new Client({ connectionString: process.env.DATABASE_URL });
      await again.connect();
      await again.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await again.end();
    },
  };
}

function startServer(env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(dist, 'main.js')], { env: { ...process.env, DATABASE_URL: '', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
}

async function api(url, path, body, method = 'POST') {
  const response = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? null : response.json();
}

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

async function ingest(url, from, count) {
  const batches = [];
  for (let i = from; i < from + count; i += BATCH) {
    batches.push(Array.from({ length: Math.min(BATCH, from + count - i) }, (_, k) => documentText(i + k)));
  }
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < batches.length) {
        const documents = batches[next++];
        const result = await api(url, '/v3/documents/batch', { documents, containerTag: 'bench' });
        if (result.failed) throw new Error(`batch had ${result.failed} failures`);
      }
    }),
  );
  return performance.now() - started;
}

async function waitDone(url, started, sample) {
  for (;;) {
    sample();
    const { totalCount } = await api(url, '/v3/documents/processing', undefined, 'GET');
    if (totalCount === 0) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const pct = (values, p) => values.slice().sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

async function latency(url, path, makeBody) {
  const times = [];
  for (let i = 0; i < QUERIES; i++) {
    const body = makeBody();
    const t = performance.now();
    await api(url, path, body);
    times.push(performance.now() - t);
  }
  return `p50 ${pct(times, 50).toFixed(2)} ms, p95 ${pct(times, 95).toFixed(2)} ms, max ${Math.max(...times).toFixed(1)} ms`;
}

const dataDir = mkdtempSync(join(tmpdir(), 'keel-bench-'));
const database = await freshDatabase();
const { child, url } = await startServer({ KEEL_PORT: '0', KEEL_DATA_DIR: dataDir, KEEL_API_KEYS: KEY, KEEL_LOG_LEVEL: 'warn', ...(database.url ? { DATABASE_URL: database.url } : {}) });
let peakRss = rssMb(child.pid);
const sample = () => (peakRss = Math.max(peakRss, rssMb(child.pid)));
const sampler = setInterval(sample, 100);
try {
  const baseRss = rssMb(child.pid);
  const started = performance.now();
  const acceptMs = await ingest(url, 0, DOCS);
  const doneMs = await waitDone(url, started, sample);
  const { chunks } = await api(url, `/v3/documents/${(await api(url, '/v3/documents/list', { limit: 1 })).memories[0].id}/chunks`, undefined, 'GET');
  const perDoc = chunks.length;
  const lines = [
    `# keel memory bench — ${new Date().toISOString()}`,
    `machine: ${execSync('nproc').toString().trim()} cores, ${execSync("free -g | awk '/Mem:/ {print $2}'").toString().trim()} GB RAM, node ${process.version}, ${database.url ? 'PostgreSQL' : 'SQLite'}`,
    `command: ${database.url ? 'DATABASE_URL=… ' : ''}KEEL_DIST=${process.env.KEEL_DIST ?? 'dist'} node bench/memory-ingest.mjs (docs ${DOCS}, batch ${BATCH}, ${PARALLEL} parallel requests)`,
    `ingest: ${DOCS} docs of ~2 KB accepted in ${(acceptMs / 1000).toFixed(2)} s = ${Math.round(DOCS / (acceptMs / 1000))} docs/s`,
    `pipeline: all ${DOCS} done ${(doneMs / 1000).toFixed(2)} s after the first request (${perDoc} chunks per doc)`,
    `rss: ${baseRss.toFixed(0)} MB at start, peak ${peakRss.toFixed(0)} MB during ingestion`,
  ];
  console.log(lines.join('\n'));
  const extraDocs = Math.max(0, Math.ceil(CHUNK_TARGET / perDoc) - DOCS);
  if (extraDocs > 0) {
    await ingest(url, DOCS, extraDocs);
    await waitDone(url, performance.now(), sample);
  }
  const stored = (DOCS + extraDocs) * perDoc;
  // Dreaming runs oldest first: when the newest document has dreamed, all have.
  const dreamStarted = performance.now();
  const newest = (await api(url, '/v3/documents/list', { limit: 1, sort: 'createdAt', order: 'desc' })).memories[0].id;
  const dreamBudget = Number(process.env.BENCH_DREAM_WAIT_S ?? 180) * 1000;
  let dreamt = false;
  while (!(dreamt = (await api(url, `/v3/documents/${newest}`, undefined, 'GET')).dreamingStatus === 'done') && performance.now() - dreamStarted < dreamBudget) {
    await new Promise((r) => setTimeout(r, 200));
  }
  console.log(
    dreamt
      ? `dreaming (deterministic memory extraction) finished ${((performance.now() - dreamStarted) / 1000).toFixed(1)} s after the last document was done`
      : `dreaming still running after ${dreamBudget / 1000} s: searches below run while memories are being extracted`,
  );
  const q = () => `${queryWord()} ${queryWord()}`;
  console.log(`search over ~${stored} chunks (${DOCS + extraDocs} docs), ${QUERIES} sequential queries of 2 words among the 2,000 most frequent:`);
  console.log(`  POST /v3/search (limit 10): ${await latency(url, '/v3/search', () => ({ q: q(), containerTag: 'bench', limit: 10 }))}`);
  console.log(`  POST /v4/search hybrid (limit 10): ${await latency(url, '/v4/search', () => ({ q: q(), containerTag: 'bench', searchMode: 'hybrid', limit: 10, threshold: 0 }))}`);
  console.log(`  peak RSS overall ${peakRss.toFixed(0)} MB`);
} finally {
  clearInterval(sampler);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await database.drop?.();
  rmSync(dataDir, { recursive: true, force: true });
}
