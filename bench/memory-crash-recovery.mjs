#!/usr/bin/env node
// Recovery after kill -9: 3,000 documents accepted through /v3/documents/batch, the server killed with
// SIGKILL mid-pipeline, a new one started on the same database. Prints the time from the kill until the
// documents it had claimed are `done` (the takeover), and until every document is `done` (throughput), and checks each was finished exactly once (its chunks'
// positions are 0..n-1 with no duplicate).
//   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/memory-crash-recovery.mjs
//   (without DATABASE_URL: SQLite in a temp data dir, for comparison)
// Knobs: BENCH_DOCS (3000).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineLine } from './lib/figures.mjs';
import { freshDatabase, startKeel } from './lib/keel-server.mjs';

const DOCS = Number(process.env.BENCH_DOCS ?? 3000);
const KEY = 'bench-key';
const database = await freshDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'keel-crash-'));
const env = { KEEL_API_KEYS: KEY, KEEL_DATA_DIR: dataDir };
const call = (url, path, body) =>
  fetch(`${url}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  }).then((r) => r.json());
const processing = async (url) => (await call(url, '/v3/documents/processing')).totalCount;

let keel = await startKeel({ databaseUrl: database.url, env, onOutput: () => {} });
const text = (i) => Array.from({ length: 20 }, (_, j) => `Crash bench document ${i} sentence ${j} with enough words to chunk.`).join(' ');
const ids = [];
for (let i = 0; i < DOCS; i += 500) {
  const { results } = await call(keel.url, '/v3/documents/batch', { documents: Array.from({ length: Math.min(500, DOCS - i) }, (_, k) => text(i + k)), containerTag: 'crash' });
  ids.push(...results.map((r) => r.id));
}
// Kill once about a tenth is done, with work claimed.
while ((await processing(keel.url)) > DOCS * 0.9) await new Promise((r) => setTimeout(r, 20));
const unfinished = await processing(keel.url);
// Documents past `queued` when the server dies are the ones it had claimed (oldest 1,000 listed).
const claimed = (await call(keel.url, '/v3/documents/processing')).documents.filter((d) => d.status !== 'queued').map((d) => d.id);
keel.child.kill('SIGKILL');
const killedAt = performance.now();
await keel.exit;
keel = await startKeel({ databaseUrl: database.url, env, onOutput: () => {} });
const restartedAt = performance.now();
let claimedDoneAt;
while ((await processing(keel.url)) > 0) {
  if (claimedDoneAt === undefined) {
    const statuses = await Promise.all(claimed.map((id) => call(keel.url, `/v3/documents/${id}`).then((d) => d.status)));
    if (statuses.every((s) => s === 'done')) claimedDoneAt = performance.now();
  }
  await new Promise((r) => setTimeout(r, 50));
}
const doneAt = performance.now();
claimedDoneAt ??= doneAt;

let duplicates = 0;
for (const id of ids.filter((_, i) => i % 30 === 0)) {
  const { chunks } = await call(keel.url, `/v3/documents/${id}/chunks`);
  if (chunks.some((c, i) => c.position !== i)) duplicates++;
}
console.log(`machine: ${machineLine()}`);
console.log(`date: ${new Date().toISOString()}   engine: ${database.url ? 'PostgreSQL' : 'SQLite'}   documents: ${DOCS}, ${unfinished} unfinished at the kill`);
console.log(`kill -9 → the ${claimed.length} documents claimed at the kill done: ${((claimedDoneAt - killedAt) / 1000).toFixed(1)} s (target < 15 s)`);
console.log(`kill -9 → all done: ${((doneAt - killedAt) / 1000).toFixed(1)} s   restart (healthy) → all done: ${((doneAt - restartedAt) / 1000).toFixed(1)} s`);
console.log(`documents with duplicated or missing chunk positions (1 in 30 checked): ${duplicates}`);
await keel.stop();
rmSync(dataDir, { recursive: true, force: true });
await database.drop();
