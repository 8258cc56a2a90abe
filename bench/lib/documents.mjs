// Finished memory documents written straight into the tables (one chunk each, with the full-text index
// rows the pipeline would write), for the benches that need a large store without waiting for the
// pipeline: bench/console-documents.mjs, bench/operations.mjs. Start Keel once on the data directory or
// database first (it creates the schema), then seed, then start it again.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { keelDist } from './keel-server.mjs';
import { wordSource } from './words.mjs';

const require = createRequire(import.meta.url);

/** The server's own statements that rebuild the full-text index (what `keel restore` runs), from the build the benches run. */
function fullTextRebuild(dialect) {
  require('reflect-metadata');
  return require(join(keelDist, 'memory', 'search', 'full-text-index.js')).rebuildFullTextSql(dialect);
}
const STATUSES = ['done', 'done', 'done', 'done', 'failed', 'queued'];
const TAGS = ['user_1', 'user_2', 'user_3', 'team_a', 'team_b'];

// Chunk text: Zipf-distributed words (words.mjs, as bench/memory-ingest.mjs), so a query word is in
// some chunks, not in all of them.
const { word } = wordSource(42);
const chunkText = (i) => `Document ${i}: ${Array.from({ length: 40 }, word).join(' ')}.`;

const columns = [
  'id',
  'custom_id',
  'content',
  'title',
  'type',
  'source',
  'task_type',
  'dreaming',
  'status',
  'dreaming_status',
  'error',
  'metadata',
  'container_tag',
  'container_tags',
  'revision',
  'dreamed_length',
  'created_at',
  'updated_at',
];
function row(i, content) {
  const status = STATUSES[i % STATUSES.length];
  const tag = TAGS[i % TAGS.length];
  // Finished rows only: an unfinished one would be claimed by the pipeline while we measure.
  const final = status === 'queued' ? 'done' : status;
  const at = Date.UTC(2026, 0, 1) + i * 60_000;
  return [
    `bench${String(i).padStart(17, '0')}`,
    null,
    content,
    `Document ${i}`,
    i % 10 === 0 ? 'webpage' : 'text',
    'text',
    'memory',
    'dynamic',
    final,
    'done',
    final === 'failed' ? 'extraction failed' : null,
    JSON.stringify({ n: i % 100 }),
    tag,
    JSON.stringify([tag]),
    0,
    0,
    at,
    at,
  ];
}

const chunkColumns = ['document_id', 'position', 'content', 'start_offset', 'end_offset', 'created_at'];
const chunkRow = (i, content) => [
  `bench${String(i).padStart(17, '0')}`,
  0,
  content,
  0,
  content.length,
  Date.UTC(2026, 0, 1) + i * 60_000,
];

/** Writes `docs` finished documents (and their chunks) into the database of `keelEnv` ({databaseUrl} or {dataDir}). */
export async function seedDocuments(keelEnv, docs) {
  const DOCS = docs;
  if (keelEnv.databaseUrl) {
    const { Client } = require('pg');
    const client = new Client({ connectionString: keelEnv.databaseUrl });
    await client.connect();
    await client.query('BEGIN');
    const insert = (table, names, rows) =>
      client.query(
        `INSERT INTO ${table} (${names.join(', ')}) VALUES ${rows
          .map((_, r) => `(${names.map((__, c) => `$${r * names.length + c + 1}`).join(', ')})`)
          .join(', ')}`,
        rows.flat(),
      );
    for (let i = 0; i < DOCS; i += 1000) {
      const ids = Array.from({ length: Math.min(1000, DOCS - i) }, (_, k) => i + k);
      const texts = ids.map(chunkText);
      await insert(
        'memory_document',
        columns,
        ids.map((n, k) => row(n, texts[k])),
      );
      await insert(
        'memory_chunk',
        chunkColumns,
        ids.map((n, k) => chunkRow(n, texts[k])),
      );
    }
    // The full-text rows the server writes (words, container tags, organization), by its own rebuild.
    for (const sql of fullTextRebuild('postgres')) await client.query(sql);
    await client.query('COMMIT');
    // What autovacuum does a moment after such an insert (statistics, and the visibility map that lets
    // COUNT(*) read an index instead of the table), and the write-back of the seed, done now, so the
    // measurements below see the table as it is once the server has been running a while.
    await client.query('VACUUM ANALYZE');
    await client.query('CHECKPOINT');
    await client.end();
  } else {
    const Database = require('better-sqlite3');
    const db = new Database(join(keelEnv.dataDir, 'keel.sqlite'));
    const insert = db.prepare(
      `INSERT INTO memory_document (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    );
    const insertChunk = db.prepare(
      `INSERT INTO memory_chunk (${chunkColumns.join(', ')}) VALUES (${chunkColumns.map(() => '?').join(', ')})`,
    );
    db.transaction(() => {
      for (let i = 0; i < DOCS; i++) {
        const text = chunkText(i);
        insert.run(row(i, text));
        insertChunk.run(chunkRow(i, text));
      }
      // The full-text rows the server writes (words and organization), by its own rebuild.
      for (const sql of fullTextRebuild('sqlite')) db.exec(sql);
    })();
    db.close();
  }
}

