// dist/bundle/main.js, what `npm start` and the `keel` command run: loads the bundled server
// (server.js, beside it) with V8's code cache. Compiling the 5 MB bundle, and then each function as
// it first runs, was about a fifth of every start; with the code the previous start compiled, a
// restart skips that work (`bench/start-rss.mjs --restarts`: 744–763 → 594–615 ms on SQLite).
//
// The cache lives in the package's node_modules/.cache/keel (never packed, and as trusted as the
// code beside it), one file per build of the bundle. It is written once, 1.5 s after a start that
// found none (or one V8 refused: another Node version, another build, a `--cpu-prof` run), so it
// holds what start-up compiled. Anything wrong with it only costs the saving: V8 checks that the
// data matches this source and this V8, and an unreadable or unwritable cache is no cache.
'use strict';
const { isAscii } = require('node:buffer');
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const { Script, constants } = require('node:vm');

const WRITE_AFTER_MS = 1500;

const file = join(__dirname, 'server.js');
const bytes = readFileSync(file);
// The build leaves it ASCII (scripts/bundle.js), and Latin-1 decodes ASCII five times faster than UTF-8.
const source = isAscii(bytes) ? bytes.latin1Slice(0, bytes.length) : bytes.toString('utf8');
const cacheDir = join(__dirname, '..', '..', 'node_modules', '.cache', 'keel');
const stat = statSync(file);
const build = createHash('sha1').update(file).digest('hex').slice(0, 12);
const cacheFile = join(cacheDir, `server-${build}-${stat.size}-${Math.trunc(stat.mtimeMs)}-${process.version}.v8cache`);

let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  cachedData = undefined;
}

dropLoaderWarning();
const script = new Script(Module.wrap(source), {
  filename: file,
  cachedData,
  // `import()` inside the bundle (Nest's optional packages) resolves as in any CommonJS module.
  importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});

const server = new Module(file, module);
server.filename = file;
server.paths = Module._nodeModulePaths(__dirname);
server.loaded = true;
script.runInThisContext().call(server.exports, server.exports, Module.createRequire(file), server, file, __dirname);

if (cachedData === undefined || script.cachedDataRejected) setTimeout(saveCache, WRITE_AFTER_MS).unref();

/** The code compiled so far, written whole (a rename) in place of this bundle's older caches. */
function saveCache() {
  try {
    mkdirSync(cacheDir, { recursive: true });
    const partial = `${cacheFile}.${process.pid}`;
    writeFileSync(partial, script.createCachedData());
    renameSync(partial, cacheFile);
    for (const name of readdirSync(cacheDir)) {
      if (name.startsWith(`server-${build}-`) && join(cacheDir, name) !== cacheFile) rmSync(join(cacheDir, name), { force: true });
    }
  } catch {
    // A read-only install starts without the saving.
  }
}

/**
 * Node 20 calls `USE_MAIN_CONTEXT_DEFAULT_LOADER` experimental and says so at the bundle's first
 * `import()` (Nest probing for its optional packages at every start): that one warning is dropped,
 * any other passes.
 */
function dropLoaderWarning() {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    if (String(warning).includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return;
    return emitWarning.call(process, warning, ...rest);
  };
}
