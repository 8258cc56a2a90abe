// File browsing figures for Keel: latency of the routes the TUI and web app call while a user types or
// browses, on a generated git repository of N files (30 lines each, in 200 packages):
//   GET /find/file (fuzzy name, once per keystroke), GET /find (text search, all files scanned when
//   nothing matches), GET /file/status, GET /file, GET /file/content.
//
// Usage (after `scripts/build-to.sh .dist-<you>`):
//   KEEL_DIST=$PWD/.dist-<you> node bench/files-search.mjs [--files 20000] [--rounds 20]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineLine, numberOption, percentile } from './lib/figures.mjs';
import { startKeel } from './lib/keel-server.mjs';

const argv = process.argv.slice(2);
const FILES = numberOption(argv, 'files', 20_000);
const ROUNDS = numberOption(argv, 'rounds', 20);
const WORDS = [
  'alpha',
  'beta',
  'gamma',
  'delta',
  'controller',
  'service',
  'module',
  'index',
  'util',
  'store',
  'view',
  'route',
];

/** A committed repository of FILES small TypeScript files, plus one modified and one untracked file. */
function generateRepository(dir) {
  const git = (...args) => execFileSync('git', args, { cwd: dir });
  git('init', '-q', '-b', 'main');
  const packages = 200;
  for (let i = 0; i < FILES; i++) {
    const pkg = join(dir, `pkg${String(i % packages).padStart(3, '0')}`, WORDS[i % WORDS.length]);
    mkdirSync(pkg, { recursive: true });
    const lines = Array.from(
      { length: 30 },
      (_, l) => `export const ${WORDS[(i + l) % WORDS.length]}${l} = ${i * 30 + l};`,
    );
    writeFileSync(join(pkg, `${WORDS[(i * 7) % WORDS.length]}_${i}.ts`), `${lines.join('\n')}\n`);
  }
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'bench');
  writeFileSync(join(dir, 'pkg000', 'alpha', 'alpha_0.ts'), 'export const changed = true;\n');
  writeFileSync(join(dir, 'untracked.ts'), 'export const fresh = 1;\n');
}

async function timed(url, rounds) {
  const samples = [];
  let body;
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const response = await fetch(url);
    body = await response.json();
    if (response.status !== 200) throw new Error(`${url}: ${response.status} ${JSON.stringify(body)}`);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return {
    p50: percentile(samples, 50),
    max: samples.at(-1),
    results: Array.isArray(body) ? body.length : 1,
  };
}

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'keel-bench-files-')));
const generation = performance.now();
generateRepository(dir);
const generatedS = (performance.now() - generation) / 1000;
const keel = await startKeel({ allowedDirectories: dir });
try {
  const q = (path) =>
    `${keel.url}${path}${path.includes('?') ? '&' : '?'}directory=${encodeURIComponent(dir)}`;
  console.log(`# files bench — ${new Date().toISOString()}`);
  console.log(`machine: ${machineLine()}`);
  console.log(
    `command: KEEL_DIST=${process.env.KEEL_DIST ?? 'dist'} node bench/files-search.mjs --files ${FILES} --rounds ${ROUNDS}`,
  );
  console.log(`repository: ${FILES} files of 30 lines in git (generated in ${generatedS.toFixed(1)} s)`);
  const rows = [
    // Each keystroke of an @-completion: after the first, the listing is shared for 2 s.
    ['GET /find/file?query=contr (keystrokes)', '/find/file?query=contr', ROUNDS],
    ['GET /find/file?query=pkg01/uti', '/find/file?query=pkg01/uti', ROUNDS],
    ['GET /find?pattern=controller1 (stops at 200)', '/find?pattern=controller1', Math.max(3, ROUNDS >> 2)],
    ['GET /find?pattern=NoSuchText (every file)', '/find?pattern=NoSuchText', Math.max(3, ROUNDS >> 2)],
    ['GET /file/status', '/file/status', Math.max(3, ROUNDS >> 2)],
    ['GET /file?path=pkg000', '/file?path=pkg000', ROUNDS],
    ['GET /file/content (unchanged file)', '/file/content?path=pkg001%2Fbeta%2Findex_1.ts', ROUNDS],
    ['GET /file/content (modified: patch + diff)', '/file/content?path=pkg000%2Falpha%2Falpha_0.ts', ROUNDS],
  ];
  for (const [name, path, rounds] of rows) {
    const r = await timed(q(path), rounds);
    console.log(
      `${name.padEnd(48)} p50 ${r.p50.toFixed(1).padStart(7)} ms  max ${r.max.toFixed(1).padStart(7)} ms  (${rounds} requests, ${r.results} results)`,
    );
  }
} finally {
  await keel.stop();
  rmSync(dir, { recursive: true, force: true });
}
