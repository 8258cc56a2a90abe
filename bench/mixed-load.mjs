// Mixed load: N concurrent clients (default 500), each on its own keep-alive connection, for S seconds
// (default 60), each request one of: create a session, list sessions, read a session, add a memory
// document, read a document, list documents (weights below). Prints req/s, p50/p95/p99 overall and per
// kind, errors (non-2xx or failed connections) and, after the run, acknowledged-but-missing rows: every
// session and document whose create was answered 2xx is read back and must be there.
//
// Usage (after `npm run build`; the load generator shares the machine's cores with the server):
//   node bench/mixed-load.mjs [--clients 500] [--seconds 60]
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/mixed-load.mjs
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineLine, numberOption, percentile, rssMb } from './lib/figures.mjs';
import { freshDatabase, startKeel } from './lib/keel-server.mjs';
import { mulberry32 } from './lib/words.mjs';

const argv = process.argv.slice(2);
const CLIENTS = numberOption(argv, 'clients', 500);
const SECONDS = numberOption(argv, 'seconds', 60);
const engine = process.env.DATABASE_URL?.startsWith('postgres') ? 'PostgreSQL' : 'SQLite';
/** Share of each kind of request (reads outnumber writes, sessions and documents alike). */
const MIX = [
  ['session.create', 10],
  ['session.list', 15],
  ['session.get', 20],
  ['document.add', 10],
  ['document.get', 30],
  ['document.list', 15],
];
const TOTAL_WEIGHT = MIX.reduce((sum, [, w]) => sum + w, 0);

function request(agent, url, method = 'GET', body) {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const started = performance.now();
    const req = http.request(url, { method, agent, headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {} }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString(), ms: performance.now() - started }));
      res.on('error', (error) => resolve({ status: 0, body: error.message, ms: performance.now() - started }));
    });
    req.on('error', (error) => resolve({ status: 0, body: error.message, ms: performance.now() - started }));
    req.end(payload);
  });
}

const database = await freshDatabase();
const keel = await startKeel({ databaseUrl: database.url, allowedDirectories: tmpdir() });
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'keel-bench-dir-')));
const dirQuery = `directory=${encodeURIComponent(dir)}`;
console.log(`mixed load, ${engine}, ${CLIENTS} clients for ${SECONDS} s: ${MIX.map(([k, w]) => `${k} ${w}%`).join(', ')}`);
console.log(`${new Date().toISOString()} · ${machineLine()}`);

const sessions = [];
const documents = [];
const latencies = Object.fromEntries(MIX.map(([k]) => [k, []]));
const errors = {};
const all = [];
let done = 0;

async function one(agent, rand) {
  let pick = rand() * TOTAL_WEIGHT;
  let kind = MIX[0][0];
  for (const [k, w] of MIX) {
    if ((pick -= w) < 0) {
      kind = k;
      break;
    }
  }
  // Reads of a row need one: a create comes first.
  if (kind === 'session.get' && !sessions.length) kind = 'session.create';
  if (kind === 'document.get' && !documents.length) kind = 'document.add';
  const any = (list) => list[Math.floor(rand() * list.length)];
  let r;
  if (kind === 'session.create') {
    r = await request(agent, `${keel.url}/session?${dirQuery}`, 'POST', { title: `mixed ${done}` });
    if (r.status === 200) sessions.push(JSON.parse(r.body).id);
  } else if (kind === 'session.list') r = await request(agent, `${keel.url}/session?${dirQuery}`);
  else if (kind === 'session.get') r = await request(agent, `${keel.url}/session/${any(sessions)}?${dirQuery}`);
  else if (kind === 'document.add') {
    r = await request(agent, `${keel.url}/v3/documents`, 'POST', { content: `Mixed load note ${done}: the quick brown fox ${Math.floor(rand() * 1e9)}.`, containerTag: `mixed-${Math.floor(rand() * 20)}` });
    if (r.status === 200 || r.status === 201) documents.push(JSON.parse(r.body).id);
  } else if (kind === 'document.get') r = await request(agent, `${keel.url}/v3/documents/${any(documents)}`);
  else r = await request(agent, `${keel.url}/v3/documents/list`, 'POST', { containerTags: [`mixed-${Math.floor(rand() * 20)}`], limit: 20 });
  done++;
  latencies[kind].push(r.ms);
  slowest.push({ kind, ms: r.ms, at: (performance.now() - r.ms - started) / 1000, status: r.status });
  if (slowest.length > 20) slowest.sort((a, b) => b.ms - a.ms).splice(10);
  all.push(r.ms);
  if (r.status < 200 || r.status >= 300) {
    const key = `${kind} ${r.status}${r.status === 0 ? ` ${r.body}` : ''}`;
    errors[key] = (errors[key] ?? 0) + 1;
  }
}

/** The slowest requests: kind, latency, and when (seconds into the run) each was sent. */
const slowest = [];
const started = performance.now();
const until = started + SECONDS * 1000;
let peakRss = 0;
const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, rssMb(keel.pid))), 1000);
await Promise.all(
  Array.from({ length: CLIENTS }, async (_, c) => {
    // One connection per client, as 500 separate clients would have.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const rand = mulberry32(c + 1);
    while (performance.now() < until) await one(agent, rand);
    agent.destroy();
  }),
);
clearInterval(rssTimer);
const elapsed = (performance.now() - started) / 1000;

// Every acknowledged create must be readable.
const check = new http.Agent({ keepAlive: true, maxSockets: 20 });
let missingSessions = 0;
let missingDocuments = 0;
const verify = async (ids, url) => {
  let missing = 0;
  for (let i = 0; i < ids.length; i += 20)
    await Promise.all(
      ids.slice(i, i + 20).map(async (id) => {
        const r = await request(check, url(id));
        if (r.status !== 200) missing++;
      }),
    );
  return missing;
};
missingSessions = await verify(sessions, (id) => `${keel.url}/session/${id}?${dirQuery}`);
missingDocuments = await verify(documents, (id) => `${keel.url}/v3/documents/${id}`);
check.destroy();

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const fmt = (x) => x.toFixed(1);
const overall = sorted(all);
console.log(`requests ${done.toLocaleString('en')} in ${elapsed.toFixed(1)} s: ${(done / elapsed).toFixed(0)} req/s; p50 ${fmt(percentile(overall, 50))} ms, p95 ${fmt(percentile(overall, 95))} ms, p99 ${fmt(percentile(overall, 99))} ms, max ${fmt(overall[overall.length - 1])} ms`);
console.log('kind             count   p50 ms   p95 ms   p99 ms   max ms');
for (const [kind] of MIX) {
  const xs = sorted(latencies[kind]);
  console.log(`${kind.padEnd(15)} ${String(xs.length).padStart(6)} ${fmt(percentile(xs, 50)).padStart(8)} ${fmt(percentile(xs, 95)).padStart(8)} ${fmt(percentile(xs, 99)).padStart(8)} ${fmt(xs[xs.length - 1] ?? 0).padStart(8)}`);
}
console.log(`slowest: ${slowest.sort((a, b) => b.ms - a.ms).slice(0, 5).map((r) => `${r.kind} ${fmt(r.ms)} ms sent at ${r.at.toFixed(1)} s (${r.status})`).join('; ')}`);
const errorCount = Object.values(errors).reduce((a, b) => a + b, 0);
console.log(`errors ${errorCount}${errorCount ? ` (${Object.entries(errors).map(([k, n]) => `${k}: ${n}`).join('; ')})` : ''}`);
console.log(`acknowledged but missing: ${missingSessions} of ${sessions.length} sessions, ${missingDocuments} of ${documents.length} documents`);
console.log(`server peak RSS ${fmt(peakRss)} MB · ${machineLine()}`);

await keel.stop();
await database.drop();
rmSync(dir, { recursive: true, force: true });
