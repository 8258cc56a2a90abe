import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { SETTINGS } from '../src/common/setting-catalog';
import { builtServerEntry, freshDatabase, freshProcessEnv, KeelProcess, spawnKeel, tempDir, testDatabaseServer } from './support/keel';

/**
 * The operator's commands of the built `keel` (dist/bundle/main.js, what the package's bin runs):
 * --version and --help, migrate, doctor, backup, restore and move, on the engine the suite runs on.
 */
const engine = testDatabaseServer ? 'postgres' : 'sqlite';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function keel(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [builtServerEntry(), ...args], { env: { ...process.env, DATABASE_URL: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs SQL against the suite's engine for the database of `env`. */
async function sql(env: Record<string, string>, statement: string): Promise<unknown[]> {
  if (env.DATABASE_URL) {
    const client = new Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    try {
      return (await client.query(statement)).rows;
    } finally {
      await client.end();
    }
  }
  const db = new Database(join(env.KEEL_DATA_DIR, 'keel.sqlite'));
  try {
    return statement.trim().toUpperCase().startsWith('SELECT') ? db.prepare(statement).all() : [db.prepare(statement).run()];
  } finally {
    db.close();
  }
}

/** A fresh, empty target of the suite's engine: a data directory, and a database on PostgreSQL. */
async function emptyTarget(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const database = await freshDatabase();
  const dataDir = tempDir('keel-restore-');
  return {
    env: { KEEL_DATA_DIR: dataDir, KEEL_ALLOWED_DIRECTORIES: '/tmp', KEEL_PORT: '0', KEEL_LOG_LEVEL: 'warn', ...(database.url ? { DATABASE_URL: database.url } : {}) },
    drop: async () => {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('keel --version and --help', () => {
  it('prints the version, and every setting with its default in the help', async () => {
    const version = await keel(['--version'], {});
    expect(version).toEqual({ code: 0, stdout: `${(JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version}\n`, stderr: '' });
    const help = await keel(['--help'], {});
    expect(help.code).toBe(0);
    for (const command of ['[serve]', 'migrate', 'doctor', 'backup', 'restore', 'move']) expect(help.stdout).toContain(`keel ${command}`);
    for (const setting of SETTINGS) expect([setting.env, help.stdout.includes(setting.env)]).toEqual([setting.env, true]);
    for (const flag of ['--port', '--hostname', '--cors', '--log-level', '--print-logs', '--check', '--force', '--to']) expect([flag, help.stdout.includes(flag)]).toEqual([flag, true]);
    for (const key of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY']) expect(help.stdout).toContain(key);
    // The documentation it points to is where it says (the checkout is laid out as the package).
    expect(help.stdout).not.toContain('https://github.com/');
    const [, docsDir] = /Documentation, shipped in this package: \S+ and (\S+)\//.exec(help.stdout) ?? [];
    expect(existsSync(join(docsDir, 'configuration.md'))).toBe(true);
    expect(existsSync(join(docsDir, '..', 'README.md'))).toBe(true);
  });

  it('answers an unknown command or option with one line and exit code 2', async () => {
    expect(await keel(['frobnicate'], {})).toEqual({ code: 2, stdout: '', stderr: 'keel: unknown command "frobnicate" (keel --help lists the commands)\n' });
    const unknownOption = await keel(['serve', '--portt', '1'], {});
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toMatch(/^keel: .*--portt.*\n$/);
  });
});

describe(`keel serve's flags (${engine})`, () => {
  it('listens on --port and --hostname, over their variables, and answers CORS for a --cors origin only', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    // The variables say otherwise: the flags win.
    const { env, cleanup } = await freshProcessEnv({ KEEL_PORT: '0', KEEL_HOST: 'localhost' });
    const server = await spawnKeel(env, ['serve', '--port', String(port), '--hostname', '127.0.0.1', '--cors', 'http://app.example']);
    try {
      expect(server.url).toBe(`http://127.0.0.1:${port}`);
      const preflight = (origin: string) =>
        fetch(`http://127.0.0.1:${port}/session`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
      const allowed = await preflight('http://app.example');
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe('http://app.example');
      expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
      const foreign = await preflight('http://elsewhere.example');
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
      // And it serves requests there.
      expect((await fetch(`http://127.0.0.1:${port}/session?directory=/tmp`)).status).toBe(200);
    } finally {
      await server.stop();
      await cleanup();
    }
  });
});

describe(`keel migrate and the schema version (${engine})`, () => {
  it('--check exits 1 naming the pending migrations, migrate applies them, --check then passes', async () => {
    const { env, cleanup } = await freshProcessEnv();
    try {
      const before = await keel(['migrate', '--check'], env);
      expect(before.code).toBe(1);
      expect(before.stderr).toMatch(/^keel: \d+ migration\(s\) pending: Foundation\d+, .*; run keel migrate\n$/);
      const applied = await keel(['migrate'], env);
      expect(applied.code).toBe(0);
      expect(applied.stdout).toMatch(/^applied Foundation\d+\n/);
      expect(await keel(['migrate', '--check'], env)).toEqual({ code: 0, stdout: expect.stringMatching(/^schema is current \(\w+\d+\)\n$/), stderr: '' });
    } finally {
      await cleanup();
    }
  });

  it('refuses to start on a database a newer Keel wrote, naming both versions', async () => {
    const { env, cleanup } = await freshProcessEnv();
    try {
      expect((await keel(['migrate'], env)).code).toBe(0);
      await sql(env, `INSERT INTO migrations (timestamp, name) VALUES (9999999999999, 'FromTheFuture9999999999999')`);
      const serve = await keel(['serve'], env);
      expect(serve.code).toBe(3);
      expect(serve.stderr).toMatch(/^keel: the database schema is newer than this Keel: it has migration FromTheFuture9999999999999, and this Keel knows migrations up to \w+\d+\./);
      expect((await keel(['migrate'], env)).stderr).toContain('FromTheFuture9999999999999');
    } finally {
      await cleanup();
    }
  });
});

describe('keel doctor', () => {
  it('says ok line by line on a working setup, and names a problem with its fix (exit 1)', async () => {
    const { env, cleanup } = await freshProcessEnv();
    try {
      const healthy = await keel(['doctor'], env);
      expect(healthy.code).toBe(0);
      for (const line of ['configuration read', 'is writable', 'console assets in', 'native module better-sqlite3 loads', 'git found']) expect(healthy.stdout).toContain(line);
      expect(healthy.stdout).not.toContain('problem');
      expect((await keel(['migrate'], env)).code).toBe(0);
      expect((await keel(['doctor'], env)).stdout).toMatch(/^ok {7}database .* answers, schema current \(\w+\d+\)$/m);
      const broken = await keel(['doctor'], { ...env, KEEL_ALLOWED_DIRECTORIES: '/nonexistent-keel-root' });
      expect(broken.code).toBe(1);
      expect(broken.stdout).toMatch(/problem {2}allowed directory \/nonexistent-keel-root does not exist\n {9}fix: create it, or fix KEEL_ALLOWED_DIRECTORIES\n/);
      const refused = await keel(['doctor'], { ...env, KEEL_HOST: '0.0.0.0' });
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(/^problem {2}configuration: Refusing to listen on 0\.0\.0\.0: set KEEL_SERVER_PASSWORD and KEEL_API_KEYS/);
    } finally {
      await cleanup();
    }
  });
});

describe(`keel doctor on a database a newer Keel wrote (${engine})`, () => {
  it('says the schema is newer and to upgrade Keel, naming both versions, not to check the database', async () => {
    const { env, cleanup } = await freshProcessEnv();
    try {
      expect((await keel(['migrate'], env)).code).toBe(0);
      await sql(env, `INSERT INTO migrations (timestamp, name) VALUES (9999999999999, 'FromTheFuture9999999999999')`);
      const { version } = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
      const run = await keel(['doctor'], env);
      expect(run.code).toBe(1);
      const escaped = version.replace(/\./g, '\\.');
      expect(run.stdout).toMatch(
        new RegExp(
          `^problem {2}database .* answers, but its schema is newer than this Keel \\(${escaped}\\): it has migration FromTheFuture9999999999999, this Keel knows migrations up to \\w+\\d+\n {9}fix: upgrade Keel to the release that wrote it \\(one that knows FromTheFuture9999999999999; this is ${escaped}, which knows up to \\w+\\d+\\)`,
          'm',
        ),
      );
      expect(run.stdout).not.toContain('DATABASE_URL');
      expect(run.stdout).not.toContain('KEEL_DATA_DIR');
    } finally {
      await cleanup();
    }
  });
});

describe(`keel backup and restore (${engine})`, () => {
  let source: { env: Record<string, string>; cleanup: () => Promise<void> };
  let server: KeelProcess;
  let project: string;
  let backupDir: string;
  /** What the server acknowledged before the backup began, and the backup file. */
  let acknowledged: { sessions: string[]; documents: string[] };
  let file: string;

  beforeAll(async () => {
    project = tempDir('keel-backup-project-');
    backupDir = tempDir('keel-backups-');
    source = await freshProcessEnv({ KEEL_ALLOWED_DIRECTORIES: '/tmp' });
    server = await spawnKeel(source.env);
    const url = server.url;
    const sessions: string[] = [];
    const documents: string[] = [];
    // Writes go on, two at a time, before, during and after the backup.
    let writing = true;
    const writer = async (kind: 'session' | 'document') => {
      for (let i = 0; writing; i++) {
        if (kind === 'session') {
          const response = await fetch(`${url}/session?directory=${encodeURIComponent(project)}`, json({ title: `written ${i}` }));
          sessions.push(((await response.json()) as { id: string }).id);
        } else {
          const response = await fetch(`${url}/v3/documents`, json({ content: `Harbour log ${i}: the keeper counted ${i} gulls`, containerTags: ['harbour'] }));
          documents.push(((await response.json()) as { id: string }).id);
        }
      }
    };
    const writers = [writer('session'), writer('document')];
    while (sessions.length < 20 || documents.length < 20) await new Promise((r) => setTimeout(r, 20));
    acknowledged = { sessions: [...sessions], documents: [...documents] };
    file = join(backupDir, 'keel.backup');
    const made = await keel(['backup', file], source.env);
    writing = false;
    await Promise.all(writers);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^backup .*keel\.backup: \d+ tables, \d+ rows, \d+ files, [\d.]+ MB in [\d.]+ s \(schema \w+\)\n$/);
  });

  afterAll(async () => {
    await server?.stop();
    await source?.cleanup();
    rmSync(backupDir, { recursive: true, force: true });
  });

  it('restores into an empty target everything acknowledged before the backup began', async () => {
    const target = await emptyTarget();
    try {
      const restored = await keel(['restore', file], target.env);
      expect(restored).toEqual({ code: 0, stdout: expect.stringMatching(/^restored .* \d+ tables, \d+ rows, \d+ files in [\d.]+ s\n$/), stderr: '' });
      const copy = await spawnKeel(target.env);
      try {
        const sessions = (await (await fetch(`${copy.url}/session?directory=${encodeURIComponent(project)}`)).json()) as { id: string }[];
        expect(sessions.map((s) => s.id)).toEqual(expect.arrayContaining(acknowledged.sessions));
        const listed = (await (await fetch(`${copy.url}/v3/documents/list`, json({ limit: 1000 }))).json()) as { memories: { id: string }[] };
        expect(listed.memories.map((d) => d.id)).toEqual(expect.arrayContaining(acknowledged.documents));
        // Indexes were rebuilt: a restored document is found by its words.
        const found = (await (await fetch(`${copy.url}/v3/search`, json({ q: 'keeper counted gulls', containerTags: ['harbour'] }))).json()) as { results: unknown[] };
        expect(found.results.length).toBeGreaterThan(0);
        // Seeded rows are as the backup had them, not doubled by the migration that seeds them.
        const middlewares = (await (await fetch(`${copy.url}/api/middlewares`)).json()) as { id: string }[];
        expect(new Set(middlewares.map((m) => m.id)).size).toBe(middlewares.length);
      } finally {
        await copy.stop();
      }
    } finally {
      await target.drop();
    }
  });

  it('refuses a target that holds data unless --force, naming it; --force replaces it', async () => {
    const target = await emptyTarget();
    try {
      expect((await keel(['restore', file], target.env)).code).toBe(0);
      const again = await keel(['restore', file], target.env);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/^keel: the (data directory .* already holds a database \(keel\.sqlite\)|database .* already holds \d+ table\(s\)): restore into an empty data directory or database, or pass --force to replace it\n$/);
      expect((await keel(['restore', '--force', file], target.env)).code).toBe(0);
    } finally {
      await target.drop();
    }
  });

  it('refuses a truncated file, a file of another program and a newer schema before writing anything', async () => {
    const target = await emptyTarget();
    try {
      const bytes = readFileSync(file);
      const truncated = join(backupDir, 'truncated.backup');
      writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
      const foreign = join(backupDir, 'foreign.backup');
      writeFileSync(foreign, gzipSync('{"some":"other program"}\n'));
      const lines = gunzipSync(bytes).toString('utf8').split('\n');
      const header = JSON.parse(lines[0]) as { header: { migrations: string[] } };
      header.header.migrations.push('FromTheFuture9999999999999');
      const newer = join(backupDir, 'newer.backup');
      writeFileSync(newer, gzipSync([JSON.stringify(header), ...lines.slice(1)].join('\n')));
      const cases: [string, RegExp][] = [
        [truncated, /truncated: it ends before the backup does; nothing was written/],
        [foreign, /is not a Keel backup; nothing was written/],
        ['/etc/hostname', /is not a Keel backup/],
        [newer, /was written by a newer Keel .*FromTheFuture9999999999999.*Nothing was written/],
      ];
      for (const [path, message] of cases) {
        const run = await keel(['restore', path], target.env);
        expect([path, run.code, run.stderr]).toEqual([path, 1, expect.stringMatching(message)]);
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
      }
      expect(readdirSync(target.env.KEEL_DATA_DIR).filter((f) => f.startsWith('keel.sqlite'))).toEqual([]);
      if (target.env.DATABASE_URL) expect(await sql(target.env, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`)).toEqual([]);
    } finally {
      await target.drop();
    }
  });

  it('leaves the target as it was when a restore is killed half-way', async () => {
    // Enough rows that the restore is still writing when it is killed.
    const big = join(backupDir, 'big.backup');
    const rows = Array.from({ length: 60_000 }, (_, i) => `('ses_bulk${String(i).padStart(12, '0')}', 'global', '/tmp', 'bulk ${i}', '0', ${i}, ${i})`);
    for (let i = 0; i < rows.length; i += 5000) {
      await sql(source.env, `INSERT INTO session (id, project_id, directory, title, version, time_created, time_updated) VALUES ${rows.slice(i, i + 5000).join(', ')}`);
    }
    expect((await keel(['backup', big], source.env)).code).toBe(0);
    const target = await emptyTarget();
    try {
      const child = spawn(process.execPath, [builtServerEntry(), 'restore', big], { env: { ...process.env, DATABASE_URL: '', ...target.env }, stdio: 'ignore' });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // Killed once it is writing: the SQLite file it builds exists, or PostgreSQL shows its inserts.
      for (let writing = false; !writing; await new Promise((r) => setTimeout(r, 10))) {
        writing = target.env.DATABASE_URL
          ? ((await sql({ ...target.env, DATABASE_URL: testDatabaseServer! }, `SELECT 1 FROM pg_stat_activity WHERE datname = '${new URL(target.env.DATABASE_URL).pathname.slice(1)}' AND query LIKE 'INSERT INTO "session"%'`))).length > 0
          : readdirSync(target.env.KEEL_DATA_DIR).some((f) => f.startsWith('keel.sqlite.restoring-'));
        expect(child.exitCode).toBeNull();
      }
      child.kill('SIGKILL');
      await exited;
      expect(existsSync(join(target.env.KEEL_DATA_DIR, 'keel.sqlite'))).toBe(false);
      if (target.env.DATABASE_URL) expect(await sql(target.env, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`)).toEqual([]);
      // And a second run completes.
      expect((await keel(['restore', '--force', big], target.env)).code).toBe(0);
      expect(await sql(target.env, `SELECT count(*) AS n FROM session WHERE id LIKE 'ses_bulk%'`)).toEqual([{ n: target.env.DATABASE_URL ? '60000' : 60000 }]);
    } finally {
      await target.drop();
    }
  }, 180_000);
});

const onPostgres = testDatabaseServer ? describe : describe.skip;

onPostgres('keel move: SQLite to PostgreSQL', () => {
  it('copies the release-0 fixture plus 100,000 documents (sessions, documents, memories, routes) and verifies every table; refuses a target with tables', async () => {
    const dataDir = tempDir('keel-move-');
    cpSync(join(__dirname, 'fixtures', 'release-0', 'sqlite', 'data'), dataDir, { recursive: true });
    const sourceEnv = { KEEL_DATA_DIR: dataDir, KEEL_ALLOWED_DIRECTORIES: '/tmp', KEEL_PORT: '0', KEEL_LOG_LEVEL: 'warn' };
    const target = await freshDatabase();
    try {
      // The fixture's schema brought up to this code, then 100,000 finished documents written in (as bench/operations.mjs does).
      await (await spawnKeel(sourceEnv)).stop();
      const seeder = `import { seedDocuments } from ${JSON.stringify(join(__dirname, '..', 'bench', 'lib', 'documents.mjs'))}; await seedDocuments({ dataDir: ${JSON.stringify(dataDir)} }, 100000);`;
      const seeded = await new Promise<number | null>((resolve) => spawn(process.execPath, ['--input-type=module', '-e', seeder], { stdio: 'inherit' }).once('exit', resolve));
      expect(seeded).toBe(0);
      // A time on a whole ten milliseconds (recent: the history keeps its last days), which PostgreSQL reads back as `.47`.
      const sqlite = new Database(join(dataDir, 'keel.sqlite'));
      try {
        sqlite
          .prepare(`INSERT INTO traefik_config_history (created_at, "trigger", document, diff, added, removed) VALUES (?, 'test', '{}', '', 0, 0)`)
          .run(`${new Date().toISOString().slice(0, 19).replace('T', ' ')}.470`);
      } finally {
        sqlite.close();
      }
      // What the SQLite server answers, to compare with.
      const before = await spawnKeel(sourceEnv);
      const read = async (url: string) => ({
        sessions: await (await fetch(`${url}/session?directory=/tmp`)).json(),
        documents: await (await fetch(`${url}/v3/documents/list`, json({ limit: 100 }))).json(),
        middlewares: await (await fetch(`${url}/api/middlewares`)).json(),
        resources: await (await fetch(`${url}/api/resources`)).json(),
        config: await (await fetch(`${url}/api/traefik-config`)).json(),
      });
      const expected = await read(before.url);
      await before.stop();
      const moved = await keel(['move', '--to', target.url!], sourceEnv);
      expect({ code: moved.code, stderr: moved.stderr }).toEqual({ code: 0, stderr: '' });
      expect(moved.stdout).toMatch(/memory_document: 100\d{3} rows, checksum ok/);
      expect(moved.stdout).toMatch(/memory_chunk: 100\d{3} rows, checksum ok/);
      expect(moved.stdout).toMatch(/^moved \d+ rows in \d+ tables from SQLite in .* to PostgreSQL .* in [\d.]+ s\.$/m);
      const after = await spawnKeel({ ...sourceEnv, DATABASE_URL: target.url! });
      try {
        expect(await read(after.url)).toEqual(expected);
      } finally {
        await after.stop();
      }
      const again = await keel(['move', '--to', target.url!], sourceEnv);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/^keel: the database .* already holds \d+ table\(s\): keel move writes only into an empty database/);
    } finally {
      await target.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);

  it('leaves the target empty when a move is killed half-way, and a second run completes', async () => {
    const dataDir = tempDir('keel-move-killed-');
    const sourceEnv = { KEEL_DATA_DIR: dataDir, KEEL_ALLOWED_DIRECTORIES: '/tmp', KEEL_PORT: '0', KEEL_LOG_LEVEL: 'warn' };
    const target = await freshDatabase();
    const targetName = new URL(target.url!).pathname.slice(1);
    try {
      await (await spawnKeel(sourceEnv)).stop();
      // Enough rows that the move is still copying when it is killed.
      const rows = Array.from({ length: 60_000 }, (_, i) => `('ses_bulk${String(i).padStart(12, '0')}', 'global', '/tmp', 'bulk ${i}', '0', ${i}, ${i})`);
      for (let i = 0; i < rows.length; i += 5000) {
        await sql(sourceEnv, `INSERT INTO session (id, project_id, directory, title, version, time_created, time_updated) VALUES ${rows.slice(i, i + 5000).join(', ')}`);
      }
      const child = spawn(process.execPath, [builtServerEntry(), 'move', '--to', target.url!], { env: { ...process.env, DATABASE_URL: '', ...sourceEnv }, stdio: 'ignore' });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // Killed once PostgreSQL shows its inserts into the target.
      for (let copying = false; !copying; await new Promise((r) => setTimeout(r, 10))) {
        copying = (await sql({ DATABASE_URL: testDatabaseServer! }, `SELECT 1 FROM pg_stat_activity WHERE datname = '${targetName}' AND query LIKE 'INSERT INTO "session"%'`)).length > 0;
        expect(child.exitCode).toBeNull();
      }
      child.kill('SIGKILL');
      await exited;
      // Its one transaction never committed: no table of Keel's, so no row, in the target.
      expect(await sql({ DATABASE_URL: target.url! }, `SELECT table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`)).toEqual([]);
      const again = await keel(['move', '--to', target.url!], sourceEnv);
      expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
      expect(again.stdout).toMatch(/^ {2}session: 60000 rows, checksum ok$/m);
      expect(await sql({ DATABASE_URL: target.url! }, `SELECT count(*) AS n FROM session WHERE id LIKE 'ses_bulk%'`)).toEqual([{ n: '60000' }]);
    } finally {
      await target.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
