#!/usr/bin/env node
// The operator's commands on a store of 100,000 documents (one chunk each): `keel backup` (time, size),
// `keel restore` into an empty target (time), and, with a PostgreSQL server, `keel move` from SQLite.
//   npm run build && node bench/operations.mjs                       (SQLite: backup and restore)
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/operations.mjs
//                                   (PostgreSQL backup and restore, and keel move from a SQLite store)
// Knobs: BENCH_DOCS (100000).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineLine } from './lib/figures.mjs';
import { seedDocuments } from './lib/documents.mjs';
import { freshDatabase, keelEntry, startKeel } from './lib/keel-server.mjs';

const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const serverUrl = process.env.DATABASE_URL;

/** A Keel store with DOCS documents: its schema made by a first start, then the rows written in. */
async function store(databaseUrl) {
  const dataDir = mkdtempSync(join(tmpdir(), 'keel-bench-ops-'));
  const keel = await startKeel({ databaseUrl, env: { KEEL_DATA_DIR: dataDir } });
  await keel.stop();
  await seedDocuments({ databaseUrl, dataDir }, DOCS);
  return { dataDir, databaseUrl };
}

function keel(args, target) {
  const started = performance.now();
  const output = execFileSync(process.execPath, [keelEntry, ...args], {
    env: { ...process.env, DATABASE_URL: target.databaseUrl ?? '', KEEL_DATA_DIR: target.dataDir, KEEL_LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  return { ms: performance.now() - started, output: output.trim() };
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const rows = [];
const databases = [];
/** A scratch PostgreSQL database, dropped at the end. */
async function scratch() {
  const database = await freshDatabase(serverUrl);
  databases.push(database);
  return database.url;
}

async function backupAndRestore(engine, databaseUrl) {
  const source = await store(databaseUrl);
  const file = join(source.dataDir, 'keel.backup');
  const backup = keel(['backup', file], source);
  const target = { dataDir: mkdtempSync(join(tmpdir(), 'keel-bench-ops-restore-')), databaseUrl: engine === 'PostgreSQL' ? await scratch() : undefined };
  const restore = keel(['restore', file], target);
  rows.push(`| ${engine} | backup | ${seconds(backup.ms)} | ${(statSync(file).size / 1024 / 1024).toFixed(1)} MB |`);
  rows.push(`| ${engine} | restore into an empty ${engine === 'PostgreSQL' ? 'database' : 'data directory'} | ${seconds(restore.ms)} | |`);
  rmSync(target.dataDir, { recursive: true, force: true });
  return source;
}

const sqlite = await backupAndRestore('SQLite');
if (serverUrl) {
  await backupAndRestore('PostgreSQL', await scratch());
  const target = { dataDir: sqlite.dataDir, databaseUrl: await scratch() };
  const move = keel(['move', '--to', target.databaseUrl], sqlite);
  rows.push(`| SQLite → PostgreSQL | move, verified per table | ${seconds(move.ms)} | |`);
}
rmSync(sqlite.dataDir, { recursive: true, force: true });
for (const database of databases) await database.drop();

console.log(`operations: ${DOCS} documents, one chunk each`);
console.log(machineLine());
console.log(`${new Date().toISOString()} · node bench/operations.mjs${serverUrl ? ' (DATABASE_URL set)' : ''}`);
console.log('| engine | command | time | size |');
console.log('| --- | --- | --- | --- |');
for (const row of rows) console.log(row);
