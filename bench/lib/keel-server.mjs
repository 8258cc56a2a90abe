// Start the built Keel server for a bench and stop it again, so every bench measures the same
// launch: what `npm start` runs, `$KEEL_DIST/bundle/main.js` (else dist/bundle/main.js; the unbundled
// main.js when a build has no bundle) on a free loopback port, a throwaway data dir,
// SQLite unless a database URL is given.
//
//   import { startKeel, freshDatabase } from './lib/keel-server.mjs';
//   const database = await freshDatabase();            // scratch PostgreSQL db when DATABASE_URL is postgres://…
//   const keel = await startKeel({ databaseUrl: database.url, env: { KEEL_API_KEYS: 'k' } });
//   // keel: { url, pid, child, dataDir, healthyMs }
//   await keel.stop();                                  // SIGTERM, wait for exit, remove the data dir
//   await database.drop();                             // unless BENCH_KEEP_DB is set: the database is kept (and named)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(join(root, 'package.json'));

/** The compiled server the benches run: `$KEEL_DIST`, else the repository's dist/. */
export const keelDist = process.env.KEEL_DIST ?? join(root, 'dist');
const bundled = join(keelDist, 'bundle', 'main.js');
export const keelEntry = existsSync(bundled) ? bundled : join(keelDist, 'main.js');

/** Polls `GET /global/health` until it answers 200 (the listen line comes before every module is ready). */
export async function waitHealthy(url, deadlineMs = 60_000) {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    const ok = await fetch(`${url}/global/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`${url} never became healthy`);
}

/**
 * Spawns Keel and resolves once it listens and is healthy.
 * - databaseUrl: '' (default) for SQLite in the data dir; the caller's DATABASE_URL is never inherited,
 *   so a bench only runs on PostgreSQL when it asks for it (usually through freshDatabase()).
 * - allowedDirectories: KEEL_ALLOWED_DIRECTORIES, when the bench works in temp directories.
 * - dataDir: KEEL_DATA_DIR, kept at stop (by default a new one, removed at stop).
 * - env: anything else; it overrides the defaults below and the inherited environment.
 * - onOutput(chunk): server stdout/stderr after the listen line (stderr is inherited when absent).
 */
export function startKeel({
  databaseUrl = '',
  allowedDirectories,
  logLevel = 'warn',
  env = {},
  onOutput,
  dataDir: givenDataDir,
} = {}) {
  const dataDir = givenDataDir ?? mkdtempSync(join(tmpdir(), 'keel-bench-data-'));
  const removeDataDir = () => givenDataDir === undefined && rmSync(dataDir, { recursive: true, force: true });
  const started = performance.now();
  // BENCH_NODE_ARGS: flags for the server's node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, keelEntry], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      KEEL_PORT: '0',
      KEEL_HOST: '127.0.0.1',
      KEEL_DATA_DIR: dataDir,
      KEEL_LOG_LEVEL: logLevel,
      ...(allowedDirectories ? { KEEL_ALLOWED_DIRECTORIES: allowedDirectories } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', onOutput ? 'pipe' : 'inherit'],
  });
  let exited = false;
  let stopping = false;
  const exit = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      exited = true;
      // A server that dies mid-bench would otherwise show up only as a hang or odd figures.
      if (!stopping) console.error(`keel exited unexpectedly (code ${code}, signal ${signal})`);
      resolve({ code, signal });
    }),
  );
  const stop = async () => {
    stopping = true;
    if (!exited) child.kill('SIGTERM');
    await exit;
    removeDataDir();
  };
  return new Promise((resolve, reject) => {
    let out = '';
    let listening = false;
    child.stderr?.on('data', (chunk) => (listening ? onOutput(chunk) : (out += chunk)));
    child.stdout.on('data', (chunk) => {
      if (listening) {
        onOutput?.(chunk);
        return;
      }
      out += chunk;
      const match = /opencode server listening on (http:\/\/\S+)/.exec(out);
      if (!match) return;
      listening = true;
      const url = match[1];
      waitHealthy(url).then(
        () =>
          resolve({
            url,
            pid: child.pid,
            child,
            dataDir,
            healthyMs: performance.now() - started,
            exit,
            stop,
          }),
        (error) => stop().then(() => reject(error)),
      );
    });
    void exit.then(({ code, signal }) => {
      if (!listening) {
        removeDataDir();
        reject(new Error(`keel exited (code ${code}, signal ${signal}) before listening: ${out}`));
      }
    });
  });
}

/**
 * A scratch PostgreSQL database on the server named by `serverUrl` (default $DATABASE_URL), so a bench
 * never writes into a shared one; `{ url: '' }` (SQLite) when there is no postgres:// URL.
 */
export async function freshDatabase(serverUrl = process.env.DATABASE_URL) {
  if (!serverUrl?.startsWith('postgres')) return { url: '', drop: async () => {} };
  const { Client } = require('pg');
  const name = `keel_bench_${process.pid}_${Date.now()}`;
  const admin = async (sql) => {
    const client = new Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  /** Pids of the server processes (backends) connected to this database, for their CPU time (a local server). */
  const backends = async () => {
    const client = new Client({ connectionString: serverUrl });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
      return rows.map((row) => row.pid);
    } finally {
      await client.end();
    }
  };
  // BENCH_KEEP_DB keeps the database for a later look (e.g. a search bench's 100,000 chunks).
  const keep = Boolean(process.env.BENCH_KEEP_DB);
  if (keep) console.log(`# keeping database ${name}`);
  return { url: url.toString(), backends, drop: () => (keep ? Promise.resolve() : admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)) };
}
