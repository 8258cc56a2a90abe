#!/usr/bin/env node
// Generates and checks migrations per dialect against the built entities (run `npm run build` first).
//   node scripts/migration.js generate <Name> [sqlite|postgres]   write src/migrations/<dialect>/<ts>-<Name>.ts
//   node scripts/migration.js check [sqlite|postgres]             exit 1 when entities and migrations differ
// PostgreSQL work happens in a throwaway database on KEEL_MIGRATION_DATABASE_URL's server
// (default postgres://postgres@127.0.0.1:5432/test).
require('reflect-metadata');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { DataSource } = require('typeorm');
// KEEL_DIST points at another build output (e.g. `npx tsc -p tsconfig.build.json --outDir /tmp/x`).
const dist = process.env.KEEL_DIST ?? join(__dirname, '..', 'dist');
const { buildDataSourceOptions } = require(join(dist, 'database', 'data-source-options'));

const [command, ...rest] = process.argv.slice(2);
const name = command === 'generate' ? rest.shift() : undefined;
const dialects = rest.length ? rest : ['sqlite', 'postgres'];
const serverUrl = process.env.KEEL_MIGRATION_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function withScratchDatabase(dialect, fn) {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'keel-migrations-'));
    try {
      return await fn({ dataDir: dir });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const admin = new DataSource({ type: 'postgres', url: serverUrl });
  await admin.initialize();
  const db = `keel_migrations_${process.pid}_${Date.now()}`;
  await admin.query(`CREATE DATABASE "${db}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${db}`;
  try {
    return await fn({ dataDir: tmpdir(), databaseUrl: url.toString() });
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
    await admin.destroy();
  }
}

async function pendingQueries(dialect) {
  return withScratchDatabase(dialect, async (target) => {
    const dataSource = new DataSource(buildDataSourceOptions(target));
    await dataSource.initialize();
    try {
      await dataSource.runMigrations({ transaction: 'each' });
      return await dataSource.driver.createSchemaBuilder().log();
    } finally {
      await dataSource.destroy();
    }
  });
}

const quote = (sql) => '`' + sql.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${') + '`';

function migrationSource(className, up, down) {
  const lines = (queries) => queries.map((q) => `    await queryRunner.query(${quote(q.query)});`).join('\n');
  return `import { MigrationInterface, QueryRunner } from 'typeorm';

export class ${className} implements MigrationInterface {
  name = '${className}';

  public async up(queryRunner: QueryRunner): Promise<void> {
${lines(up)}
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
${lines([...down].reverse())}
  }
}
`;
}

async function main() {
  let failed = false;
  for (const dialect of dialects) {
    const { upQueries, downQueries } = await pendingQueries(dialect);
    if (command === 'check') {
      if (upQueries.length) {
        failed = true;
        console.error(`${dialect}: entities and migrations differ; run npm run migration:generate -- <Name>:`);
        for (const q of upQueries) console.error(`  ${q.query}`);
      } else console.log(`${dialect}: migrations match the entities`);
    } else if (command === 'generate') {
      if (!name) throw new Error('usage: migration.js generate <Name> [dialect…]');
      if (!upQueries.length) {
        console.log(`${dialect}: nothing to generate`);
        continue;
      }
      const timestamp = Date.now();
      const className = `${name}${timestamp}`;
      const file = join(__dirname, '..', 'src', 'migrations', dialect, `${timestamp}-${name}.ts`);
      writeFileSync(file, migrationSource(className, upQueries, downQueries));
      console.log(`${dialect}: wrote ${file}`);
    } else throw new Error('usage: migration.js generate <Name> | check');
  }
  if (failed) process.exit(1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
