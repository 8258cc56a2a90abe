#!/usr/bin/env node
// Bundles the compiled server (dist/main.js, or $KEEL_DIST/main.js) into one file,
// <dist>/bundle/server.js, which <dist>/bundle/main.js (`npm start`; scripts/bundle-entry.js) loads
// with V8's code cache, and the extraction process the server starts
// (extraction-child.js) into <dist>/bundle/extraction-child.js, beside it. Loading about 1,300
// modules (the @nestjs ones ESM through require(esm)) is most of Keel's start-up; one file skips the
// resolution, stat and ESM linking work.
// dist/bundle/ sits one folder below dist/, like every compiled module, so paths built from
// __dirname (migrations, JSON data files) resolve the same way from the bundle.
const { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } = require('node:fs');
const { join, resolve } = require('node:path');
const { build } = require('esbuild');

const dist = resolve(process.env.KEEL_DIST ?? join(__dirname, '..', 'dist'));

// Swagger UI's files beside the bundle (dist/bundle/swagger-ui, which app.ts serves at /docs when it
// is there): the installed package then needs no swagger-ui-dist, whose install script is analytics.
const swaggerUi = join(dist, 'bundle', 'swagger-ui');
mkdirSync(swaggerUi, { recursive: true });
const swaggerUiDist = join(require.resolve('swagger-ui-dist/package.json'), '..');
for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-16x16.png', 'favicon-32x32.png']) {
  copyFileSync(join(swaggerUiDist, file), join(swaggerUi, file));
}

// @nestjs/typeorm's typeorm-compat.js looks up two exports TypeORM 1.x removed (Connection,
// AbstractRepository) with its own createRequire('typeorm'), which esbuild cannot follow: at start it
// loaded all of typeorm a second time from node_modules (about 300 modules, a quarter of a second and
// ~10 MB of heap) beside the bundled copy. Here it reads them from the bundled copy instead.
const typeormCompat = {
  name: 'typeorm-compat',
  setup(build) {
    build.onLoad({ filter: /@nestjs[\\/]typeorm[\\/]dist[\\/]common[\\/]typeorm-compat\.js$/ }, () => ({
      contents: "import * as typeorm from 'typeorm';\nconst exported = (name) => typeorm[name];\nexport const Connection = exported('Connection');\nexport const AbstractRepository = exported('AbstractRepository');\n",
      loader: 'js',
    }));
  },
};

// TypeORM's DriverFactory imports every driver it supports; Keel runs on two (better-sqlite3 and
// postgres, with sqlite-abstract behind the first). The others' modules are replaced by one whose every
// export is an inert class: the instanceof checks TypeORM makes against them stay false, and the
// bundle sheds ~600 KB of source that every start parsed and ran.
const UNUSED_TYPEORM_DRIVERS = ['aurora-mysql', 'aurora-postgres', 'capacitor', 'cockroachdb', 'cordova', 'expo', 'mongodb', 'mysql', 'nativescript', 'oracle', 'react-native', 'sap', 'spanner', 'sqljs', 'sqlserver'];
const unusedTypeormDrivers = {
  name: 'unused-typeorm-drivers',
  setup(build) {
    const filter = new RegExp(`typeorm[\\\\/](browser[\\\\/])?driver[\\\\/](${UNUSED_TYPEORM_DRIVERS.join('|')})[\\\\/][^\\\\/]+\\.js$`);
    build.onLoad({ filter }, (args) => ({
      contents: `const classes = new Map();
module.exports = new Proxy({}, {
  get(_, name) {
    if (name === '__esModule') return false;
    if (typeof name !== 'string') return undefined;
    if (!classes.has(name)) classes.set(name, class { constructor() { throw new Error(${JSON.stringify(`${args.path.split(/[\\/]/).slice(-2).join('/')} is not in Keel's bundle`)}); } });
    return classes.get(name);
  },
});`,
      loader: 'js',
    }));
  },
};

// class-validator's index brings every validator it has, libphonenumber-js's metadata among them (half
// a megabyte the start would parse); the request DTOs use its registry only (common/validation/request-fields.ts:
// ValidateBy and getMetadataStorage), so for Keel's own modules 'class-validator' is those two. Nest's
// optional probes for it (ValidationPipe, the mapped types) stay external, as before: Keel uses neither.
const classValidatorRegistry = {
  name: 'class-validator-registry',
  setup(build) {
    build.onResolve({ filter: /^class-validator$/ }, (args) =>
      /[\\/]node_modules[\\/]/.test(args.importer) ? { path: 'class-validator', external: true } : { path: 'class-validator-registry', namespace: 'keel' },
    );
    build.onLoad({ filter: /^class-validator-registry$/, namespace: 'keel' }, () => ({
      contents: "export { ValidateBy } from 'class-validator/esm5/decorator/common/ValidateBy';\nexport { getMetadataStorage } from 'class-validator/esm5/metadata/MetadataStorage';\n",
      resolveDir: __dirname,
      loader: 'js',
    }));
  },
};

// pg's lib/stream.js asks at load whether it runs in a Cloudflare Worker: it reads `navigator` (which
// Node builds on first access) and constructs a `Response` (which loads undici), about 40 ms of every
// PostgreSQL start. Keel runs on Node, so the bundle holds the Node half alone.
const pgNodeStreams = {
  name: 'pg-node-streams',
  setup(build) {
    build.onLoad({ filter: /[\\/]pg[\\/]lib[\\/]stream\.js$/ }, () => ({
      contents: "module.exports = {\n  getStream: () => new (require('net').Socket)(),\n  getSecureStream: (options) => require('tls').connect(options),\n};\n",
      loader: 'js',
    }));
  },
};

// @nestjs/common's two loggers each build an Intl.DateTimeFormat when their module loads, for the
// timestamps of their console lines; the first one loads ICU's locale data, about 20 ms of every start.
// Keel logs through its own JsonLogger (common/logger.ts), so each builds it when it first formats a time.
const EAGER_FORMATTER = 'const dateTimeFormatter = new Intl.DateTimeFormat(';
const lazyNestTimestamps = {
  name: 'lazy-nest-timestamps',
  setup(build) {
    build.onLoad({ filter: /@nestjs[\\/]common[\\/]services[\\/](console-)?logger\.service\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(EAGER_FORMATTER)) throw new Error(`${args.path} no longer builds its dateTimeFormatter as scripts/bundle.js expects`);
      return {
        contents:
          source.replace(EAGER_FORMATTER, 'const dateTimeFormatter = lazyDateTimeFormat(') +
          '\nfunction lazyDateTimeFormat(locales, options) {\n  let made;\n  return { format: (time) => (made ??= new Intl.DateTimeFormat(locales, options)).format(time) };\n}\n',
        loader: 'js',
      };
    });
  },
};

// multer (behind Nest's FileInterceptor) pins type-is 1, and with it mime-types 2 and mime-db 1.52: a
// second copy of what Express 5 loads (type-is 2, mime-types 3), whose extension maps cost 6–10 ms of
// every start to build. multer asks type-is one thing, whether a request is multipart, which the two
// versions answer alike (neither looks the word up), so the bundle gives multer Express's copy.
const MULTER_TYPE_CHECK = "is(req, ['multipart'])";
const oneTypeIs = {
  name: 'one-type-is',
  setup(build) {
    build.onResolve({ filter: /^type-is$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]multer[\\/]/.test(args.importer)) return undefined;
      const source = readFileSync(args.importer, 'utf8');
      if (source.split(/\bis\(/).length !== 2 || !source.includes(MULTER_TYPE_CHECK))
        throw new Error(`${args.importer} no longer calls type-is only as ${MULTER_TYPE_CHECK}, as scripts/bundle.js expects`);
      return { path: require.resolve('type-is', { paths: [join(__dirname, '..')] }) };
    });
  },
};

const options = {
  bundle: true,
  plugins: [typeormCompat, unusedTypeormDrivers, classValidatorRegistry, pgNodeStreams, lazyNestTimestamps, oneTypeIs],
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

// esbuild escapes non-ASCII characters everywhere but in regular expressions (ansis has one): escaped
// there too, the file is ASCII, which the entry reads as Latin-1, five times faster than UTF-8.
const serverFile = join(dist, 'bundle', 'server.js');
const server = build({ ...options, entryPoints: [join(dist, 'main.js')], outfile: serverFile, write: false }).then(({ outputFiles }) => {
  writeFileSync(serverFile, outputFiles[0].text.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
});
copyFileSync(join(__dirname, 'bundle-entry.js'), join(dist, 'bundle', 'main.js'));
// The server finds the child beside itself (extraction-sandbox.ts looks in its own directory).
const extractionChild = build({ ...options, entryPoints: [join(dist, 'memory', 'pipeline', 'extraction-child.js')], outfile: join(dist, 'bundle', 'extraction-child.js') });

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

// The Traefik schema's validators compiled ahead of time (traefik-schema.ts loads them from beside the
// bundle on first use instead of compiling the schema at every start), with the ajv runtime helpers
// their code requires bundled in.
const traefikValidatorsSource = join(dist, 'routing', 'traefik-validators.generated.js');
writeFileSync(traefikValidatorsSource, require(join(dist, 'routing', 'traefik-schema.js')).standaloneValidators());
const traefikValidators = build({ ...options, plugins: [], entryPoints: [traefikValidatorsSource], outfile: join(dist, 'bundle', 'traefik-validators.js') });

Promise.all([server, extractionChild, migrationFiles, traefikValidators]).catch((error) => {
  console.error(error);
  process.exit(1);
});
