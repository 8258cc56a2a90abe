// The part of a replica's start from a saved vector index that reads the database: the ordered walk of
// every chunk id with a vector (UsearchVectorIndex.reconcile, 50,000 ids a page), on PostgreSQL, over a
// scratch table of N rows shaped like memory_chunk (8 chunks a document; the embedding column holds a
// short stand-in, the walk never reads it).
//
// Usage: DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/vector-key-walk.mjs [--rows 1000000]
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine, numberOption } from './lib/figures.mjs';
import { freshDatabase } from './lib/keel-server.mjs';

const require = createRequire(join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json'));
const { Client } = require('pg');
const rows = numberOption(process.argv.slice(2), 'rows', 1_000_000);
const database = await freshDatabase();
if (!database.url) throw new Error('DATABASE_URL must name a PostgreSQL server');
const client = new Client({ connectionString: database.url });
await client.connect();
try {
  console.log(`chunk id walk, PostgreSQL, ${rows.toLocaleString('en')} rows`);
  console.log(`${new Date().toISOString()} · ${machineLine()}`);
  await client.query('CREATE TABLE memory_chunk (id bigserial PRIMARY KEY, document_id varchar NOT NULL, embedding text)');
  await client.query(`INSERT INTO memory_chunk (document_id, embedding) SELECT md5((g / 8)::text), '[0]' FROM generate_series(0, $1::int - 1) g`, [rows]);
  await client.query('ANALYZE memory_chunk');
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    let after = -1;
    let seen = 0;
    for (;;) {
      const page = await client.query('SELECT id, document_id FROM memory_chunk WHERE embedding IS NOT NULL AND id > $1 ORDER BY id LIMIT $2', [after, 50_000]);
      seen += page.rows.length;
      if (page.rows.length < 50_000) break;
      after = Number(page.rows[page.rows.length - 1].id);
    }
    console.log(`  walk ${run + 1}: ${seen.toLocaleString('en')} ids in ${((performance.now() - started) / 1000).toFixed(2)} s`);
  }
} finally {
  await client.end();
  await database.drop();
}
