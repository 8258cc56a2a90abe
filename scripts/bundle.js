#!/usr/bin/env node
// Bundles the compiled server (dist/main.js, or $KEEL_DIST/main.js) into one file,
// <dist>/bundle/main.js, which `npm start` runs, and the extraction process the server starts
// (extraction-child.js) into <dist>/bundle/extraction-child.js, beside it. Loading about 1,300
// modules (the @nestjs ones ESM through require(esm)) is most of Keel's start-up; one file skips the
// resolution, stat and ESM linking work.
// dist/bundle/ sits one folder below dist/, like every compiled module, so paths built from
// __dirname (migrations, JSON data files) resolve the same way from the bundle.
const { copyFileSync, mkdirSync, readdirSync } = require('node:fs');
const { join } = require('node:path');
const { build } = require('esbuild');

const dist = process.env.KEEL_DIST ?? join(__dirname, '..', 'dist');

// Swagger UI's files beside the bundle (dist/bundle/swagger-ui, which app.ts serves at /docs when it
// is there): the installed package then needs no swagger-ui-dist, whose install script is analytics.
const swaggerUi = join(dist, 'bundle', 'swagger-ui');
mkdirSync(swaggerUi, { recursive: true });
const swaggerUiDist = join(require.resolve('swagger-ui-dist/package.json'), '..');
for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-16x16.png', 'favicon-32x32.png']) {
  copyFileSync(join(swaggerUiDist, file), join(swaggerUi, file));
}

const options = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // No keepNames: it wraps every function created at run time in a defineProperty call (about 7% of a
  // request's CPU). Classes keep their names unless two bundled ones collide, and nothing in Keel
  // reads a class name (log contexts are string literals).
  // Prefer packages' ESM builds: some UMD builds (jsonc-parser) require files by computed names.
  mainFields: ['module', 'main'],
  // Bundled ESM packages read import.meta.url (e.g. @nestjs/swagger's createRequire).
  banner: { js: "const __import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__import_meta_url' },
  external: [
    // native addons and packages that locate their own files at run time
    'better-sqlite3',
    'sqlite-vec',
    'usearch',
    'node-pty',
    'pg-native',
    'pdf-parse',
    // optional peers Nest probes for and Keel does not use
    '@nestjs/microservices',
    '@nestjs/websockets',
    '@fastify/static',
    'class-transformer',
    'class-validator',
    // loaded on first use (a prompt, a DOCX, a frontmatter); zod goes with the AI SDK so both share one copy
    'ai',
    '@ai-sdk/*',
    'zod',
    'mammoth',
    'yaml',
  ],
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
};

const server = build({ ...options, entryPoints: [join(dist, 'main.js')], outfile: join(dist, 'bundle', 'main.js') });
// The server finds the child beside itself (extraction-sandbox.ts looks in its own directory).
const extractionChild = build({ ...options, entryPoints: [join(dist, 'ingestion', 'pipeline', 'extraction-child.js')], outfile: join(dist, 'bundle', 'extraction-child.js') });

// Each migration self-contained in place (the routing tables' migration imports its schema module), so
// the installed package needs dist/bundle and dist/migrations and none of the other compiled modules.
const migrations = join(dist, 'migrations');
const migrationFiles = build({
  entryPoints: ['sqlite', 'postgres'].flatMap((dialect) =>
    readdirSync(join(migrations, dialect))
      .filter((name) => name.endsWith('.js'))
      .map((name) => join(migrations, dialect, name)),
  ),
  outdir: migrations,
  outbase: migrations,
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  logLevel: 'warning',
});

Promise.all([server, extractionChild, migrationFiles]).catch((error) => {
  console.error(error);
  process.exit(1);
});
