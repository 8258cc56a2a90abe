// Vector search figures: recall@10 against exact search, search latency (p50/p95) and RSS growth, for
// the hand-written index Keel had before (exact scan, then k-means lists; built from git history) and
// the engines it uses now: sqlite-vec (vec0 table, SQLite) and usearch (int8 HNSW, PostgreSQL).
// The engines are driven in-process, as Keel's search calls them, not through HTTP: each runs in its own
// child process, so its RSS growth is its own. Vectors are 256-dimension, clustered like text embeddings
// (1,000 random centres, each vector a centre plus noise of the same norm; `--uniform` draws them
// uniformly on the sphere instead), seeded, so every engine sees the same vectors and queries.
//
// Usage (after `bash scripts/build-to.sh`):
//   node bench/vector-search.mjs [--vectors 100000] [--queries 200] [--engines old,sqlite-vec,usearch] [--uniform]
//
// `--restart` measures a replica's start instead: Keel's own UsearchVectorIndex over a memory_chunk table
// of N vectors stored as JSON (SQLite here: the index reads rows through the same Query either engine
// gives it), started once without a saved index (the graph built from the rows, then saved), then 1% of
// the documents deleted and 1% added, then started again from the saved index (loaded, compared with the
// table, brought up to it). Prints the time from start to the first full-recall answer, both ways.
//   node bench/vector-search.mjs --restart [--vectors 100000] [--queries 200] [--churn 1]   (--churn: % deleted and % added)
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine, numberOption, percentile, rssMb } from './lib/figures.mjs';
import { keelDist } from './lib/keel-server.mjs';
import { mulberry32 } from './lib/words.mjs';

const DIM = 256;
const K = 10;
/** Keel's search asks the engine for 3 × limit neighbours and ranks them by exact cosine from the stored vectors. */
const POOL = 3 * K;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
/** The commit whose src/ingestion/search/vector-index.ts is the old hand-written index. */
const OLD_INDEX_COMMIT = '0bda5bd';

const argv = process.argv.slice(2);
const vectors = numberOption(argv, 'vectors', 100_000);
const queries = numberOption(argv, 'queries', 200);
const uniform = argv.includes('--uniform');
const engineArg = argv.indexOf('--engines');
const engines = (engineArg >= 0 ? argv[engineArg + 1] : 'old,sqlite-vec,usearch').split(',');
const child = argv.indexOf('--child');
const churn = numberOption(argv, 'churn', 1);


function gaussian(rand) {
  return Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
}

function normalise(out, at) {
  let norm = 0;
  for (let i = 0; i < DIM; i++) norm += out[at + i] ** 2;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < DIM; i++) out[at + i] *= scale;
}

/** `count` unit vectors from `seed`: around shared centres (or uniform). */
function dataset(count, seed) {
  const rand = mulberry32(seed);
  const centres = new Float32Array(1000 * DIM);
  const centreRand = mulberry32(42);
  for (let i = 0; i < centres.length; i++) centres[i] = gaussian(centreRand);
  for (let c = 0; c < 1000; c++) normalise(centres, c * DIM);
  const out = new Float32Array(count * DIM);
  for (let r = 0; r < count; r++) {
    const c = Math.floor(rand() * 1000);
    for (let i = 0; i < DIM; i++) out[r * DIM + i] = uniform ? gaussian(rand) : centres[c * DIM + i] + gaussian(rand) / Math.sqrt(DIM);
    normalise(out, r * DIM);
  }
  return out;
}

const row = (data, r) => data.subarray(r * DIM, (r + 1) * DIM);

/** The old index's source, compiled, with its imports pointed at the build and node_modules. */
function loadOldIndex() {
  const ts = require('typescript');
  const source = execFileSync('git', ['show', `${OLD_INDEX_COMMIT}:src/ingestion/search/vector-index.ts`], { cwd: root, encoding: 'utf8' });
  let js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, experimentalDecorators: true } }).outputText;
  js = js.replace(/require\("\.\.\/([^"]+)"\)/g, (_, path) => `require(${JSON.stringify(join(keelDist, 'memory', path))})`);
  js = js.replace(/require\("@nestjs\/common"\)/g, `require(${JSON.stringify(require.resolve('@nestjs/common'))})`);
  const dir = mkdtempSync(join(tmpdir(), 'keel-old-index-'));
  writeFileSync(join(dir, 'old-vector-index.js'), js);
  try {
    return createRequire(join(dir, 'x.js'))('./old-vector-index.js').VectorIndex;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Builds one engine over `data` and returns a search function (query → ids) and a closer. */
async function build(engine, data, count) {
  if (engine === 'old') {
    const VectorIndex = loadOldIndex();
    const index = new VectorIndex({}, { embeddingUrl: 'http://127.0.0.1:9/v1', vectorIndexMb: 1e6 });
    for (let r = 0; r < count; r++) index.add({ id: r + 1, documentId: `d${r >> 3}`, containerTags: [], vector: row(data, r) });
    await index.settled();
    return { search: (q, k) => Promise.resolve(index.nearest(q, undefined, k).map((h) => h.id - 1)), detail: `mode ${index.mode}` };
  }
  if (engine === 'sqlite-vec') {
    const Database = require('better-sqlite3');
    const { SqliteVectorIndex, createVectorTableSql } = require(join(keelDist, 'memory', 'search', 'sqlite-vector-index.js'));
    const dir = mkdtempSync(join(tmpdir(), 'keel-vec-bench-'));
    const db = new Database(join(dir, 'keel.sqlite'));
    require('sqlite-vec').load(db);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(createVectorTableSql(DIM));
    const insert = db.prepare('INSERT INTO memory_chunk_vec (chunk_id, embedding) VALUES (?, ?)');
    db.transaction(() => {
      for (let r = 0; r < count; r++) insert.run(BigInt(r + 1), Buffer.from(data.buffer, r * DIM * 4, DIM * 4));
    })();
    // The same Query shape Keel's IngestionStore hands the index.
    const query = (sql, params = []) => Promise.resolve(db.prepare(sql).all(...params));
    const index = new SqliteVectorIndex(query);
    return {
      search: async (q, k) => (await index.nearest(Array.from(q), undefined, k)).map((h) => h.id - 1),
      detail: 'exact scan of a vec0 table in a WAL file',
      close: () => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (engine === 'usearch') {
    const { usearchIndex } = require(join(keelDist, 'memory', 'search', 'usearch-vector-index.js'));
    const index = usearchIndex(DIM);
    const batch = 10_000;
    for (let r = 0; r < count; r += batch) {
      const n = Math.min(batch, count - r);
      const keys = new BigUint64Array(n);
      for (let i = 0; i < n; i++) keys[i] = BigInt(r + i + 1);
      // Keel adds one vector at a time, on the event loop; the bench adds in batches on one thread too.
      index.add(keys, data.subarray(r * DIM, (r + n) * DIM), 1);
    }
    return {
      search: (q, k) => {
        const m = index.search(q, k, 1);
        return Promise.resolve(Array.from(m.keys, (k) => Number(k) - 1));
      },
      detail: 'HNSW, cosine, int8, M=16, ef_add=128, ef_search=256',
    };
  }
  throw new Error(`unknown engine ${engine}`);
}

async function runChild(engine) {
  const data = dataset(vectors, 1);
  const qs = dataset(queries, 2);
  // Exact neighbours (float32 cosine, usearch's brute force).
  const { exactSearch, MetricKind } = require('usearch');
  const truth = exactSearch(data, qs, DIM, K, MetricKind.Cos, 2);
  global.gc?.();
  const before = rssMb(process.pid);
  const started = Date.now();
  const built = await build(engine, data, vectors);
  const buildMs = Date.now() - started;
  global.gc?.();
  const after = rssMb(process.pid);
  const times = [];
  let hits = 0;
  let rankedHits = 0;
  const dot = (a, b) => {
    let s = 0;
    for (let i = 0; i < DIM; i++) s += data[a * DIM + i] * qs[b * DIM + i];
    return s;
  };
  for (let q = 0; q < queries; q++) {
    const t = performance.now();
    const ids = await built.search(row(qs, q), POOL);
    times.push(performance.now() - t);
    const exact = new Set(Array.from(truth.keys.subarray(q * K, (q + 1) * K), Number));
    hits += ids.slice(0, K).filter((id) => exact.has(id)).length;
    const ranked = ids.map((id) => ({ id, score: dot(id, q) })).sort((a, b) => b.score - a.score).slice(0, K);
    rankedHits += ranked.filter((r) => exact.has(r.id)).length;
  }
  times.sort((a, b) => a - b);
  built.close?.();
  process.stdout.write(
    JSON.stringify({ engine, detail: built.detail, recall: hits / (queries * K), ranked: rankedHits / (queries * K), p50: percentile(times, 50), p95: percentile(times, 95), rssGrowthMb: after - before, buildS: buildMs / 1000 }) + '\n',
  );
}

function runInChild(engine) {
  return new Promise((resolve, reject) => {
    const args = ['--expose-gc', '--max-old-space-size=8192', fileURLToPath(import.meta.url), ...argv, '--child', engine];
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (c) => (out += c));
    proc.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop())) : reject(new Error(`${engine} exited with ${code}`))));
  });
}

/** One start of Keel's usearch index over `db`'s rows, saving under `dir`: its time to a complete index and its recall. */
async function startIndex(db, dir, live, data, qs) {
  const { UsearchVectorIndex } = require(join(keelDist, 'memory', 'search', 'usearch-vector-index.js'));
  const store = { query: (sql, params = []) => Promise.resolve(db.prepare(sql).all(...params)), afterCommit: (_q, fn) => fn() };
  const bus = { signal() {}, signals: () => ({ subscribe: () => ({ unsubscribe() {} }) }) };
  global.gc?.();
  const rssBefore = rssMb(process.pid);
  const started = performance.now();
  const index = new UsearchVectorIndex(store, bus, true, { dir, model: 'bench', database: 'sqlite', intervalMs: 0 });
  await index.ready();
  const firstAnswerMs = performance.now() - started;
  await index.loaded();
  const completeMs = performance.now() - started;
  // Recall against exact search over the rows that are in the table now.
  const liveIds = [];
  for (let r = 0; r < live.length; r++) if (live[r]) liveIds.push(r);
  const liveData = new Float32Array(liveIds.length * DIM);
  liveIds.forEach((r, i) => liveData.set(row(data, r), i * DIM));
  const { exactSearch, MetricKind } = require('usearch');
  const truth = exactSearch(liveData, qs, DIM, K, MetricKind.Cos, 2);
  let hits = 0;
  let stale = 0;
  const times = [];
  for (let q = 0; q < queries; q++) {
    const t = performance.now();
    const found = await index.nearest(Array.from(row(qs, q)), undefined, K);
    times.push(performance.now() - t);
    const exact = new Set(Array.from(truth.keys.subarray(q * K, (q + 1) * K), (i) => liveIds[Number(i)] + 1));
    hits += found.filter((h) => exact.has(h.id)).length;
    stale += found.filter((h) => !live[h.id - 1]).length;
  }
  times.sort((a, b) => a - b);
  const state = index.describe();
  const saveStarted = performance.now();
  await index.onApplicationShutdown();
  const saveMs = performance.now() - saveStarted;
  global.gc?.();
  return { firstAnswerMs, completeMs, recall: hits / (queries * K), stale, p50: percentile(times, 50), state, saveMs, rssGrowthMb: rssMb(process.pid) - rssBefore };
}

async function runRestart() {
  const Database = require('better-sqlite3');
  const { readdirSync, statSync } = await import('node:fs');
  const data = dataset(vectors, 1);
  const qs = dataset(queries, 2);
  const dir = mkdtempSync(join(tmpdir(), 'keel-vec-restart-'));
  const db = new Database(join(dir, 'keel.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.exec('CREATE TABLE memory_chunk (id INTEGER PRIMARY KEY, document_id TEXT NOT NULL, embedding TEXT)');
  // As Keel's schema has it (IDX_memory_chunk_document): without it each delete below scans the table.
  db.exec('CREATE INDEX memory_chunk_document ON memory_chunk (document_id)');
  const insert = db.prepare('INSERT INTO memory_chunk (id, document_id, embedding) VALUES (?, ?, ?)');
  const json = (r) => JSON.stringify(Array.from(row(data, r), (v) => Math.round(v * 1e5) / 1e5));
  /** 8 chunks a document; the last 1% of the vectors are held back and added after the first start. */
  const held = Math.floor((vectors * churn) / 100);
  const live = new Uint8Array(vectors);
  const t0 = performance.now();
  db.transaction(() => {
    for (let r = 0; r < vectors - held; r++) {
      insert.run(r + 1, `d${r >> 3}`, json(r));
      live[r] = 1;
    }
  })();
  // Progress on stderr (the parent reads the child's stdout for its result).
  console.error(`  table of ${(vectors - held).toLocaleString('en')} vectors written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const saved = join(dir, 'vectors');
  const cold = await startIndex(db, saved, live, data, qs);
  console.error(`  started without a saved index: complete in ${(cold.completeMs / 1000).toFixed(1)} s`);
  const files = readdirSync(saved).filter((f) => f.startsWith('replica-0.'));
  const savedMb = files.reduce((sum, f) => sum + statSync(join(saved, f)).size, 0) / 2 ** 20;
  // While the replica is down: 1% of the documents deleted, 1% of the vectors added.
  const deleted = new Set();
  db.transaction(() => {
    for (let d = 0; deleted.size < Math.ceil(((vectors - held) * churn) / 800); d += 97) deleted.add(`d${d % Math.floor((vectors - held) / 8)}`);
    for (const doc of deleted) db.prepare('DELETE FROM memory_chunk WHERE document_id = ?').run(doc);
    for (let r = vectors - held; r < vectors; r++) {
      insert.run(r + 1, `n${r >> 3}`, json(r));
      live[r] = 1;
    }
  })();
  for (let r = 0; r < vectors - held; r++) if (deleted.has(`d${r >> 3}`)) live[r] = 0;
  console.error(`  ${deleted.size.toLocaleString('en')} documents deleted and ${held.toLocaleString('en')} vectors added while it was down`);
  const warm = await startIndex(db, saved, live, data, qs);
  db.close();
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(JSON.stringify({ cold, warm, savedMb }) + '\n');
}

if (argv.includes('--restart') && child < 0) {
  console.log(`vector index restart, ${vectors.toLocaleString('en')} vectors × ${DIM} dims stored as JSON, ${queries} queries, k=${K}`);
  console.log(`${new Date().toISOString()} · ${machineLine()}`);
  const r = await runInChild('restart');
  const line = (name, x) =>
    console.log(
      `${name.padEnd(30)} ${(x.completeMs / 1000).toFixed(2).padStart(8)} s ${(x.state.openMs / 1000).toFixed(2).padStart(8)} s ${x.recall.toFixed(3).padStart(8)} ${String(x.stale).padStart(6)} ${x.p50.toFixed(2).padStart(7)} ${(x.saveMs / 1000).toFixed(2).padStart(7)} s   ${x.state.source} +${x.state.added} −${x.state.removed}, ${x.state.size} held`,
    );
  console.log('start                          complete    graph loaded  recall@10  stale  p50 ms  save at stop');
  line('without a saved index (build)', r.cold);
  line(`from the saved index (+${churn}% −${churn}%)`, r.warm);
  console.log(`saved files: ${r.savedMb.toFixed(0)} MB; full recall ${(r.cold.completeMs / r.warm.completeMs).toFixed(1)}× sooner from the saved index`);
} else if (child >= 0 && argv[child + 1] === 'restart') {
  await runRestart();
} else if (child >= 0) {
  await runChild(argv[child + 1]);
} else {
  console.log(`vector search, ${vectors.toLocaleString('en')} vectors × ${DIM} dims (${uniform ? 'uniform' : 'clustered'}), ${queries} queries, k=${K}`);
  console.log(`${new Date().toISOString()} · ${machineLine()}`);
  console.log(`recall@10: the engine's first 10 of the ${POOL} it returns; ranked: after Keel's exact rescoring of those ${POOL}; latency: one ${POOL}-nearest call`);
  console.log('engine       recall@10   ranked   p50 ms   p95 ms   RSS growth MB   build s   how');
  for (const engine of engines) {
    try {
      const r = await runInChild(engine);
      console.log(
        `${engine.padEnd(12)} ${r.recall.toFixed(3).padStart(9)} ${r.ranked.toFixed(3).padStart(8)} ${r.p50.toFixed(2).padStart(8)} ${r.p95.toFixed(2).padStart(8)} ${r.rssGrowthMb.toFixed(0).padStart(15)} ${r.buildS.toFixed(1).padStart(9)}   ${r.detail}`,
      );
    } catch (error) {
      console.log(`${engine.padEnd(12)} failed: ${error.message}`);
    }
  }
}
