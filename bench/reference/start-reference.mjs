// Starts the reference opencode server (opencode-ai, pinned in ./package.json) for side-by-side
// bench figures. Install once with `npm install --prefix bench/reference`.
//
//   import { startReference } from './reference/start-reference.mjs';
//   const ref = await startReference();      // { url, version, pid, home, output(), stop() }
//   ... drive ref.url over HTTP/WebSocket ...
//   await ref.stop();
//
// The server runs with a throwaway HOME and XDG dirs (no user config, no state left behind), with
// every feature that would reach the network switched off, and listens on a free loopback port.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The installed binary (`opencode-ai`'s bin, linked by its postinstall to the platform package's executable). */
export function referenceBinary() {
  const bin = join(here, 'node_modules', '.bin', 'opencode');
  if (!existsSync(bin)) {
    throw new Error(`reference server not installed: run \`npm install --prefix ${here}\``);
  }
  return bin;
}

export function referenceVersion() {
  return JSON.parse(readFileSync(join(here, 'node_modules', 'opencode-ai', 'package.json'), 'utf8')).version;
}

/** Environment that keeps the reference offline and inside `home`. */
function isolatedEnv(home, extra) {
  const env = {
    PATH: process.env.PATH,
    SHELL: process.env.SHELL ?? '/bin/bash',
    LANG: process.env.LANG ?? 'C.UTF-8',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    OPENCODE_DISABLE_AUTOUPDATE: 'true',
    OPENCODE_DISABLE_MODELS_FETCH: 'true',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: 'true',
    OPENCODE_DISABLE_LSP_DOWNLOAD: 'true',
    OPENCODE_DISABLE_SHARE: 'true',
    OPENCODE_DISABLE_CLAUDE_CODE: 'true',
    OPENCODE_DISABLE_EXTERNAL_SKILLS: 'true',
    OPENCODE_DISABLE_EMBEDDED_WEB_UI: 'true',
    OPENCODE_EXPERIMENTAL_DISABLE_FILEWATCHER: 'true',
    OPENCODE_PURE: 'true',
    // An empty provider list: nothing to download or authenticate.
    OPENCODE_CONFIG_CONTENT: JSON.stringify({ autoupdate: false, share: 'disabled', enabled_providers: [] }),
    ...extra,
  };
  for (const dir of [env.XDG_CONFIG_HOME, env.XDG_DATA_HOME, env.XDG_STATE_HOME, env.XDG_CACHE_HOME]) {
    mkdirSync(dir, { recursive: true });
  }
  return env;
}

/**
 * Start `opencode serve --port 0 --hostname 127.0.0.1` and resolve once it prints
 * `opencode server listening on http://…` (the line the official SDK waits for too).
 *
 * @param {{ env?: Record<string,string>, cwd?: string, timeoutMs?: number, args?: string[] }} [options]
 *   `env` is merged over the isolated environment: e.g. OPENCODE_SERVER_PASSWORD, or
 *   OPENCODE_CONFIG_CONTENT (JSON config) to replace the default `{enabled_providers: []}` with a
 *   provider pointing at a scripted model server on loopback. `cwd` is the server's working
 *   directory (its default instance directory), a fresh temp dir (removed by stop()) by default.
 *   `args` are extra `serve` flags (e.g. ['--cors', 'http://example.test']).
 * @returns {Promise<{ url: string, version: string, pid: number, home: string, cwd: string, output: () => string, stop: () => Promise<void> }>}
 */
export function startReference(options = {}) {
  const binary = referenceBinary();
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'keel-ref-home-')));
  const cwd = options.cwd ?? realpathSync(mkdtempSync(join(tmpdir(), 'keel-ref-cwd-')));
  const ownsCwd = options.cwd === undefined;
  const child = spawn(binary, ['serve', '--port', '0', '--hostname', '127.0.0.1', ...(options.args ?? [])], {
    cwd,
    env: isolatedEnv(home, options.env ?? {}),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, so stop() also reaps what it spawned
  });
  let out = '';
  const cleanup = () => {
    rmSync(home, { recursive: true, force: true });
    if (ownsCwd) rmSync(cwd, { recursive: true, force: true });
  };
  const stop = () =>
    new Promise((done) => {
      const finish = () => {
        cleanup();
        done();
      };
      if (child.exitCode !== null || child.signalCode !== null) return finish();
      const force = setTimeout(() => signalGroup('SIGKILL'), 5_000);
      child.once('exit', () => {
        clearTimeout(force);
        signalGroup('SIGKILL'); // anything left in its group (PTY shells are their own sessions)
        finish();
      });
      signalGroup('SIGTERM');
    });
  const signalGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop().then(() => reject(new Error(`reference server did not start:\n${out}`)));
    }, options.timeoutMs ?? 60_000);
    const onData = (chunk) => {
      out += chunk.toString();
      const match = /opencode server listening on (https?:\/\/\S+)/.exec(out);
      if (!match) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.stdout.on('data', (c) => (out += c.toString()));
      resolve({ url: match[1], version: referenceVersion(), pid: child.pid, home, cwd, output: () => out, stop });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (c) => (out += c.toString()));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      cleanup();
      reject(new Error(`reference server exited (${code ?? signal}):\n${out}`));
    });
  });
}

// `node bench/reference/start-reference.mjs`: start it, print the URL, stop on Ctrl-C.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ref = await startReference();
  process.stdout.write(`opencode ${ref.version} (reference) listening on ${ref.url} (pid ${ref.pid}, HOME ${ref.home})\n`);
  const shutdown = () => void ref.stop().then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
