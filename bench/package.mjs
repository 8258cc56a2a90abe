#!/usr/bin/env node
// Keel as an operator installs it: `npm pack` of the built checkout (tarball size, unpacked size),
// `npm install -g` of it into a fresh prefix (wall time: the native modules build here), then
// `keel serve` from another directory, start to the first healthy `GET /global/health`, median of 5
// starts on an empty SQLite data directory and on one already migrated.
//   npm run build && node bench/package.mjs
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine } from './lib/figures.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const STARTS = Number(process.env.BENCH_STARTS ?? 5);
// npm as the operator runs it: none of the npm_* settings an `npm run` parent hands its children.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));

const home = mkdtempSync(join(tmpdir(), 'keel-bench-package-'));
const seconds = (from) => ((performance.now() - from) / 1000).toFixed(1);

/** Milliseconds from spawning `keel serve` to its first healthy answer. */
async function startToHealthy(keel, dataDir, cwd) {
  const started = performance.now();
  const child = spawn(keel, ['serve'], { cwd, env: { ...env, DATABASE_URL: '', KEEL_DATA_DIR: dataDir, KEEL_PORT: '0', KEEL_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const match = /listening on (\S+)/.exec(out);
        if (match) resolve(match[1]);
      });
      child.stderr.on('data', (chunk) => (out += chunk));
      child.once('exit', (code) => reject(new Error(`keel exited ${code}: ${out}`)));
    });
    for (;;) {
      const answer = await fetch(`${url}/global/health`).catch(() => undefined);
      if (answer?.ok) return performance.now() - started;
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

try {
  console.log(machineLine());
  let from = performance.now();
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', home], { cwd: root, env, encoding: 'utf8' });
  const [info] = JSON.parse(packed);
  const tarball = join(home, info.filename);
  console.log(`npm pack: ${(statSync(tarball).size / 1e6).toFixed(1)} MB tarball, ${(info.unpackedSize / 1e6).toFixed(1)} MB unpacked, ${info.entryCount} files (${seconds(from)} s)`);
  from = performance.now();
  const prefix = join(home, '.local');
  execFileSync('npm', ['install', '-g', '--prefix', prefix, '--allow-scripts=better-sqlite3,node-pty,usearch', tarball], { cwd: home, env, stdio: 'ignore' });
  console.log(`npm install -g (fresh prefix, native modules built): ${seconds(from)} s`);
  const keel = join(prefix, 'bin', 'keel');
  const cwd = mkdtempSync(join(home, 'cwd-'));
  const empty = [];
  for (let i = 0; i < STARTS; i++) empty.push(await startToHealthy(keel, mkdtempSync(join(home, 'data-')), cwd));
  const migrated = mkdtempSync(join(home, 'data-'));
  await startToHealthy(keel, migrated, cwd);
  const again = [];
  for (let i = 0; i < STARTS; i++) again.push(await startToHealthy(keel, migrated, cwd));
  console.log(`keel serve → healthy, median of ${STARTS}: ${median(empty).toFixed(0)} ms on an empty data directory, ${median(again).toFixed(0)} ms on a migrated one`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
