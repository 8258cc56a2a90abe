#!/usr/bin/env node
// Memory surface benchmark: batch ingestion of ~2 KB text documents, time until all are `done`,
// RSS during ingestion, then search latency (v3 chunk search, v4 hybrid) with ~100k chunks stored.
//   KEEL_DIST=$PWD/.dist-mem node bench/memory-ingest.mjs            (SQLite in a temp data dir)
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test … node bench/memory-ingest.mjs   (fresh PostgreSQL database)
// Knobs: BENCH_DOCS (10000), BENCH_CHUNKS (100000), BENCH_BATCH (500), BENCH_PARALLEL (4), BENCH_QUERIES (400),
// BENCH_EMBED_DIM (0 = full text only; e.g. 256 starts a loopback OpenAI-compatible /embeddings server with
// deterministic hashed bag-of-words vectors, so chunks get vectors and search is hybrid),
// BENCH_DREAM_WAIT_S (1800: how long to wait for memory extraction before measuring search).
// BENCH_SEARCH_DB=<name> (with DATABASE_URL): only the searches below, on a database an earlier run kept
// (BENCH_KEEP_DB=1), as it is: for comparing builds (KEEL_DIST) on the same 100,000 chunks.
// On SQLite the same with BENCH_DATA_DIR=<dir> (Keel's data dir, kept after the run) and then
// BENCH_SEARCH_DIR=<that dir>. Those runs first answer BENCH_WARMUP (200) searches unmeasured.
// Search is measured twice: while the documents after the first BENCH_DOCS are ingested, and once the
// pipeline and dreaming have finished.
import { createServer } from 'node:http';
import { machineLine, percentile, rssMb } from './lib/figures.mjs';
import { freshDatabase, startKeel } from './lib/keel-server.mjs';
import { wordSource } from './lib/words.mjs';

const DOCS = Number(process.env.BENCH_DOCS ?? 10_000);
const CHUNK_TARGET = Number(process.env.BENCH_CHUNKS ?? 100_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 500);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 4);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 400);
const EMBED_DIM = Number(process.env.BENCH_EMBED_DIM ?? 0);
const KEY = 'bench-key';

// Zipf-distributed words (bench/lib/words.mjs), so a query word is in some chunks, not in all of them.
const { rand, word, vocabulary: VOCAB } = wordSource(42);
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

/** Deterministic embeddings: each word adds ±1 to a hashed dimension (FNV-1a), then the vector is normalised. */
function hashedEmbedding(text) {
  const vector = new Float64Array(EMBED_DIM);
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 0x811c9dc5;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 0x01000193);
    vector[(h >>> 1) % EMBED_DIM] += h & 1 ? 1 : -1;
  }
  const norm = Math.hypot(...vector) || 1;
  return Array.from(vector, (v) => Math.round((v / norm) * 1e6) / 1e6);
}

async function startEmbeddingServer() {
  let requests = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests++;
      const input = [JSON.parse(body).input].flat();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: input.map((t, index) => ({ object: 'embedding', index, embedding: hashedEmbedding(t) })) }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, requests: () => requests, close: () => new Promise((r) => server.close(r)) };
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

const pct = (values, p) => percentile(values.slice().sort((a, b) => a - b), p);
const summary = (times) => `p50 ${pct(times, 50).toFixed(2)} ms, p95 ${pct(times, 95).toFixed(2)} ms, max ${Math.max(...times).toFixed(1)} ms (${times.length} queries)`;

const query = () => `${queryWord()} ${queryWord()}`;
const SEARCHES = {
  v3: ['/v3/search', () => ({ q: query(), containerTag: 'bench', limit: 10 })],
  v4: ['/v4/search', () => ({ q: query(), containerTag: 'bench', searchMode: 'hybrid', limit: 10, threshold: 0 })],
};

async function timed(url, kind) {
  const [path, makeBody] = SEARCHES[kind];
  const body = makeBody();
  const t = performance.now();
  await api(url, path, body);
  return performance.now() - t;
}

async function latency(url, kind) {
  const times = [];
  for (let i = 0; i < QUERIES; i++) times.push(await timed(url, kind));
  return summary(times);
}

/** Sequential v3/v4 searches, alternating, until `work` settles: what a user sees while ingestion runs. */
async function latencyDuring(url, work) {
  const times = { v3: [], v4: [] };
  let settled = false;
  const done = work.finally(() => (settled = true));
  for (let i = 0; !settled; i++) {
    const kind = i % 2 ? 'v4' : 'v3';
    times[kind].push(await timed(url, kind));
  }
  return { result: await done, times };
}

const { BENCH_SEARCH_DB, BENCH_SEARCH_DIR } = process.env;
if (BENCH_SEARCH_DB || BENCH_SEARCH_DIR) {
  const kept = BENCH_SEARCH_DB ? new URL(process.env.DATABASE_URL) : undefined;
  if (kept) kept.pathname = `/${BENCH_SEARCH_DB}`;
  const keel = await startKeel({ databaseUrl: kept?.toString(), dataDir: BENCH_SEARCH_DIR, env: { KEEL_API_KEYS: KEY } });
  try {
    console.log(`# search on the kept ${kept ? `database ${BENCH_SEARCH_DB}` : `data dir ${BENCH_SEARCH_DIR}`}, KEEL_DIST=${process.env.KEEL_DIST ?? 'dist'} — ${machineLine()}`);
    // A full run measures a server that has answered thousands of searches during ingestion: this one
    // first warms its JIT and each pooled connection's catalog cache the same way, unmeasured.
    const warmup = Number(process.env.BENCH_WARMUP ?? 200);
    for (let i = 0; i < warmup; i++) await timed(keel.url, i % 2 ? 'v4' : 'v3');
    console.log(`  after ${warmup} unmeasured searches (BENCH_WARMUP), v3 and v4 alternating:`);
    console.log(`  POST /v3/search (limit 10): ${await latency(keel.url, 'v3')}`);
    console.log(`  POST /v4/search hybrid (limit 10): ${await latency(keel.url, 'v4')}`);
  } finally {
    await keel.stop();
  }
  process.exit(0);
}

const embeddings = EMBED_DIM > 0 ? await startEmbeddingServer() : undefined;
const database = await freshDatabase();
const keel = await startKeel({ databaseUrl: database.url, dataDir: process.env.BENCH_DATA_DIR, env: { KEEL_API_KEYS: KEY, ...(embeddings ? { KEEL_EMBEDDING_URL: embeddings.url } : {}) } });
const { child, url } = keel;
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
    `machine: ${machineLine()}, ${database.url ? 'PostgreSQL' : 'SQLite'}`,
    `command: ${database.url ? 'DATABASE_URL=… ' : ''}${EMBED_DIM ? `BENCH_EMBED_DIM=${EMBED_DIM} ` : ''}KEEL_DIST=${process.env.KEEL_DIST ?? 'dist'} node bench/memory-ingest.mjs (docs ${DOCS}, batch ${BATCH}, ${PARALLEL} parallel requests)`,
    `embeddings: ${EMBED_DIM ? `${EMBED_DIM}-dimension hashed vectors from a loopback server (hybrid search)` : 'none (full-text search only)'}`,
    `ingest: ${DOCS} docs of ~2 KB accepted in ${(acceptMs / 1000).toFixed(2)} s = ${Math.round(DOCS / (acceptMs / 1000))} docs/s`,
    `pipeline: all ${DOCS} done ${(doneMs / 1000).toFixed(2)} s after the first request (${perDoc} chunks per doc)`,
    `rss: ${baseRss.toFixed(0)} MB at start, peak ${peakRss.toFixed(0)} MB during ingestion`,
  ];
  console.log(lines.join('\n'));
  const extraDocs = Math.max(0, Math.ceil(CHUNK_TARGET / perDoc) - DOCS);
  if (extraDocs > 0) {
    const during = performance.now();
    const { times } = await latencyDuring(
      url,
      ingest(url, DOCS, extraDocs).then(() => waitDone(url, performance.now(), sample)),
    );
    const duringS = ((performance.now() - during) / 1000).toFixed(1);
    console.log(`search while ${extraDocs} more docs are ingested and processed (all done in ${duringS} s; sequential, v3 and v4 alternating, same queries as below):`);
    console.log(`  POST /v3/search: ${summary(times.v3)}`);
    console.log(`  POST /v4/search hybrid: ${summary(times.v4)}`);
  }
  const stored = (DOCS + extraDocs) * perDoc;
  // A batch's documents share one createdAt, so no one document is known to dream last: the server's
  // backlog gauge says when all have (polling one document let searches start with hundreds still to dream).
  const dreamStarted = performance.now();
  const dreamBudget = Number(process.env.BENCH_DREAM_WAIT_S ?? 1800) * 1000;
  const backlog = async () => Number(/^keel_pipeline_dream_backlog (\S+)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1]);
  let dreamt = false;
  while (!(dreamt = (await backlog()) === 0) && performance.now() - dreamStarted < dreamBudget) {
    await new Promise((r) => setTimeout(r, 200));
  }
  console.log(
    dreamt
      ? `dreaming (deterministic memory extraction) finished ${((performance.now() - dreamStarted) / 1000).toFixed(1)} s after the last document was done`
      : `dreaming still running after ${dreamBudget / 1000} s: searches below run while memories are being extracted`,
  );
  console.log(`search over ~${stored} chunks (${DOCS + extraDocs} docs), ${QUERIES} sequential queries of 2 words among the 2,000 most frequent:`);
  console.log(`  POST /v3/search (limit 10): ${await latency(url, 'v3')}`);
  console.log(`  POST /v4/search hybrid (limit 10): ${await latency(url, 'v4')}`);
  console.log(`  peak RSS overall ${peakRss.toFixed(0)} MB; load average now ${machineLine().split('load average ')[1]}`);
  if (embeddings) console.log(`  embedding requests served: ${embeddings.requests()}`);
} finally {
  clearInterval(sampler);
  await keel.stop();
  await database.drop();
  await embeddings?.close();
}
