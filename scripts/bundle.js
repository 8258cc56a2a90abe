#!/usr/bin/env node
// Bundles the compiled server (dist/main.js, or $KEEL_DIST/main.js) into one file,
// <dist>/bundle/main.js, which `npm start` runs, and the extraction process the server starts
// (extraction-child.js) into <dist>/bundle/extraction-child.js, beside it. Loading about 1,300
// modules (the @nestjs ones ESM through require(esm)) is most of Keel's start-up; one file skips the
// resolution, stat and ESM linking work.
// dist/bundle/ sits one folder below dist/, like every compiled module, so paths built from
// __dirname (migrations, JSON data files) resolve the same way from the bundle.
const { join } = require('node:path');
const { buildSync } = require('esbuild');

const dist = process.env.KEEL_DIST ?? join(__dirname, '..', 'dist');

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
    'swagger-ui-dist',
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

buildSync({ ...options, entryPoints: [join(dist, 'main.js')], outfile: join(dist, 'bundle', 'main.js') });
// The server finds the child beside itself (extraction-sandbox.ts looks in its own directory).
buildSync({ ...options, entryPoints: [join(dist, 'ingestion', 'pipeline', 'extraction-child.js')], outfile: join(dist, 'bundle', 'extraction-child.js') });
