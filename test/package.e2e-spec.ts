import { execFile, spawn } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tempDir, testDatabaseServer } from './support/keel';

const run = promisify(execFile);
const root = join(__dirname, '..');
/**
 * npm as the machine's user runs it: their home (npmrc, cache; the suites run with an empty one), and
 * none of the npm_* settings `npm test` or npx hand their children.
 */
const npmEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_'))),
  HOME: process.env.KEEL_TEST_REAL_HOME ?? process.env.HOME,
};

/** The install line the README prints (scripts allowed for the three native modules only). */
const ALLOW_SCRIPTS = '--allow-scripts=better-sqlite3,node-pty,usearch';

/**
 * Keel as an operator installs it: `npm pack` of the built checkout, `npm install -g` of the tarball
 * into a fresh prefix under a dot-directory (as ~/.local and npm's ~/.npm/_npx are), then the `keel`
 * command run from another directory. The package is engine-independent: checked on the SQLite run only
 * (building its native modules takes minutes).
 */
(testDatabaseServer ? describe.skip : describe)('the packed package: npm install -g, then keel', () => {
  let home: string;
  let keel: string;
  let installLog: string;

  beforeAll(async () => {
    home = tempDir('keel-package-');
    const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', home], { cwd: root, env: npmEnv });
    const tarball = join(home, packed.stdout.trim().split('\n').at(-1)!);
    const prefix = join(home, '.local');
    const installed = await run('npm', ['install', '-g', '--prefix', prefix, ALLOW_SCRIPTS, tarball], { cwd: home, env: npmEnv, maxBuffer: 16 * 1024 * 1024 });
    installLog = `${installed.stdout}${installed.stderr}`;
    keel = join(prefix, 'bin', 'keel');
  }, 15 * 60_000);

  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('installs on this Node with no warning, and holds the built server and console, no sources', () => {
    expect(installLog).not.toMatch(/EBADENGINE|npm warn/i);
    const installedRoot = join(home, '.local', 'lib', 'node_modules', 'keel');
    expect(readdirSync(installedRoot).sort()).toEqual(expect.arrayContaining(['bin', 'console', 'dist', 'package.json']));
    expect(readdirSync(installedRoot)).not.toContain('src');
    expect(readdirSync(join(installedRoot, 'dist')).sort()).toEqual(expect.arrayContaining(['bundle', 'migrations']));
  });

  it('keel serve, run from another directory, serves the console and each surface; keel doctor passes', async () => {
    const work = tempDir('keel-package-cwd-');
    const env = { ...process.env, DATABASE_URL: '', KEEL_DATA_DIR: join(home, 'data'), KEEL_PORT: '0', KEEL_ALLOWED_DIRECTORIES: work, KEEL_LOG_LEVEL: 'warn' };
    const version = await run(keel, ['--version'], { env });
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const child = spawn(keel, ['serve'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const match = /listening on (\S+)/.exec(out);
          if (match) resolve(match[1]);
        });
        child.stderr.on('data', (c: Buffer) => (out += c.toString()));
        child.once('exit', (code) => reject(new Error(`keel exited ${code}: ${out}`)));
      });
      const page = await fetch(`${url}/ui/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
      expect((await fetch(`${url}/docs/swagger-ui.css`)).status).toBe(200);
      expect(await (await fetch(`${url}/global/health`)).json()).toEqual({ healthy: true, version: version.stdout.trim() });
      const document = await fetch(`${url}/v3/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: 'installed as a package' }) });
      expect(document.status).toBe(200);
      const middlewares = (await (await fetch(`${url}/api/middlewares`)).json()) as unknown[];
      expect(middlewares.length).toBeGreaterThan(0);
      const doctor = await run(keel, ['doctor'], { cwd: work, env });
      expect(doctor.stdout).not.toContain('problem');
      expect(doctor.stdout).toMatch(/native module better-sqlite3 loads/);
    } finally {
      child.kill();
      rmSync(work, { recursive: true, force: true });
    }
  });
});
