// Start and idle figures of the built server alone, several starts in a row: time from spawn to the
// first healthy `GET /global/health`, and RSS one second after one `GET /session` (as
// bench/session-api.mjs takes it), plus what `/proc` says the process mapped. SQLite, or PostgreSQL when
// DATABASE_URL names a server (a scratch database per start, migrations included in the first).
//
// `--restarts`: one data directory or database for every start, so the first start creates the schema
// (all migrations) and the others are restarts of an existing one, as a replica's usually are; the
// first is then reported apart.
//
// Usage (after `npm run build`):
//   node bench/start-rss.mjs [--runs 5] [--restarts]
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/start-rss.mjs
// With BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" each start leaves a CPU profile.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineLine, numberOption, percentile, rssMb } from './lib/figures.mjs';
import { freshDatabase, startKeel } from './lib/keel-server.mjs';

const argv = process.argv.slice(2);
const runs = numberOption(argv, 'runs', 5);
const restarts = argv.includes('--restarts');
const engine = process.env.DATABASE_URL?.startsWith('postgres') ? 'PostgreSQL' : 'SQLite';

console.log(`start and idle RSS, ${engine}, ${runs} starts${restarts ? ' of one database (the first creates it)' : ', each on a new database'}`);
console.log(`${new Date().toISOString()} · ${machineLine()}`);
const healthy = [];
const idle = [];
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'keel-bench-dir-')));
const shared = restarts ? { database: await freshDatabase(), dataDir: realpathSync(mkdtempSync(join(tmpdir(), 'keel-bench-data-'))) } : undefined;
for (let i = 0; i < runs; i++) {
  const database = shared?.database ?? (await freshDatabase());
  const keel = await startKeel({ databaseUrl: database.url, ...(shared ? { dataDir: shared.dataDir } : {}) });
  try {
    await fetch(`${keel.url}/session?directory=${encodeURIComponent(dir)}`);
    await new Promise((r) => setTimeout(r, 1000));
    healthy.push(keel.healthyMs);
    idle.push(rssMb(keel.pid));
    console.log(`  start ${i + 1}: healthy in ${keel.healthyMs.toFixed(0)} ms, idle RSS ${idle[i].toFixed(1)} MB`);
  } finally {
    await keel.stop();
    if (!shared) await database.drop();
  }
}
if (shared) {
  await shared.database.drop();
  rmSync(shared.dataDir, { recursive: true, force: true });
  console.log(`first start (creating the schema): healthy in ${healthy[0].toFixed(0)} ms; the restarts below`);
  healthy.shift();
  idle.shift();
}
rmSync(dir, { recursive: true, force: true });
const sorted = (xs) => [...xs].sort((a, b) => a - b);
console.log(`median: start to healthy ${percentile(sorted(healthy), 50).toFixed(0)} ms (target < 600), idle RSS ${percentile(sorted(idle), 50).toFixed(1)} MB (target < 120)`);
