import { spawn, ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { createKeelApp, KeelApp, listen } from '../../src/app';
import { KeelSettings, loadSettings } from '../../src/common/settings';

/** A PostgreSQL server to test against when DATABASE_URL names one; SQLite otherwise. */
export const testDatabaseServer = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : undefined;

export function tempDir(prefix = 'keel-test-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** A fresh database (PostgreSQL) for one test file; dropped by the returned function. */
export async function freshDatabase(): Promise<{ url?: string; drop: () => Promise<void> }> {
  if (!testDatabaseServer) return { drop: () => Promise.resolve() };
  const admin = new DataSource({ type: 'postgres', url: testDatabaseServer });
  await admin.initialize();
  const name = `keel_test_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.destroy();
  const url = new URL(testDatabaseServer);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const again = new DataSource({ type: 'postgres', url: testDatabaseServer });
      await again.initialize();
      await again.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await again.destroy();
    },
  };
}

export interface TestKeel {
  url: string;
  keel: KeelApp;
  settings: KeelSettings;
  dataDir: string;
  /** Environment the server was started with (reuse it to restart on the same data). */
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Reuse an earlier server's data (same data dir and database). */
  reuse?: Pick<TestKeel, 'env'>;
}

function baseEnv(dataDir: string, databaseUrl?: string): Record<string, string> {
  return {
    KEEL_DATA_DIR: dataDir,
    KEEL_PORT: '0',
    KEEL_HOST: '127.0.0.1',
    KEEL_LOG_LEVEL: process.env.KEEL_TEST_LOG_LEVEL ?? 'silent',
    KEEL_ALLOWED_DIRECTORIES: tmpdir(),
    KEEL_SHUTDOWN_GRACE_MS: '1000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
}

/** Start Keel in this process on an ephemeral loopback port, with its own data dir and database. */
export async function startKeel(options: StartOptions = {}): Promise<TestKeel> {
  let env: Record<string, string>;
  let drop = (): Promise<void> => Promise.resolve();
  if (options.reuse) env = { ...options.reuse.env, ...options.env };
  else {
    const database = await freshDatabase();
    drop = database.drop;
    env = { ...baseEnv(tempDir('keel-data-'), database.url), ...options.env };
  }
  const settings = loadSettings({ ...process.env, DATABASE_URL: '', ...env }, []);
  const keel = await createKeelApp(settings);
  const url = await listen(keel, '127.0.0.1', 0);
  return {
    url,
    keel,
    settings,
    dataDir: settings.dataDir,
    env,
    close: async () => {
      await keel.app.close();
      if (!options.reuse) {
        await drop();
        rmSync(settings.dataDir, { recursive: true, force: true });
      }
    },
  };
}

export interface KeelProcess {
  url: string;
  child: ChildProcess;
  env: Record<string, string>;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * The built server as `npm start` runs it: `dist/bundle/main.js` (or under `$KEEL_DIST`), else the
 * unbundled `main.js` of a build made without the bundling step.
 */
export function builtServerEntry(): string {
  const dist = process.env.KEEL_DIST ?? join(__dirname, '..', '..', 'dist');
  const bundle = join(dist, 'bundle', 'main.js');
  return existsSync(bundle) ? bundle : join(dist, 'main.js');
}

/** Start the built server as a real process (`args`: its command line); resolves on its listening line. */
export function spawnKeel(env: Record<string, string>, args: string[] = []): Promise<KeelProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtServerEntry(), ...args], {
      env: { ...process.env, DATABASE_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`keel did not start:\n${out}`)), 30_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /opencode server listening on (https?:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
        resolve({
          url: match[1],
          child,
          env,
          output: () => out,
          stop: (signal = 'SIGTERM') =>
            new Promise((done) => {
              if (child.exitCode !== null) return done(child.exitCode);
              child.once('exit', (code) => done(code));
              child.kill(signal);
            }),
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`keel exited with ${code}:\n${out}`));
    });
  });
}

/** Environment for `spawnKeel` with a fresh data dir and database. */
export async function freshProcessEnv(extra: Record<string, string> = {}): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  const database = await freshDatabase();
  const env: Record<string, string> = { ...baseEnv(tempDir('keel-data-'), database.url), KEEL_LOG_LEVEL: 'warn', ...extra };
  return {
    env,
    cleanup: async () => {
      await database.drop();
      rmSync(env.KEEL_DATA_DIR, { recursive: true, force: true });
    },
  };
}
