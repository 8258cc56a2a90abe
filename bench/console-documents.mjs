#!/usr/bin/env node
// Memory console, documents page with 100,000 documents: the list API (first page, a deep page,
// filtered pages) and, in Chromium, the page's first content and a page change.
//   node bench/console-documents.mjs                 (SQLite in a temp data dir; build first: npm run build)
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/console-documents.mjs
// Knobs: BENCH_DOCS (100000), BENCH_RUNS (15).
// The documents are written straight into the table as finished documents (the pipeline is not what
// this measures: bench/memory-ingest.mjs is), in one transaction, then Keel is started on that data.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { machineLine, percentile } from './lib/figures.mjs';
import { freshDatabase, startKeel } from './lib/keel-server.mjs';

const require = createRequire(import.meta.url);
const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const STATUSES = ['done', 'done', 'done', 'done', 'failed', 'queued'];
const TAGS = ['user_1', 'user_2', 'user_3', 'team_a', 'team_b'];

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
function row(i) {
  const status = STATUSES[i % STATUSES.length];
  const tag = TAGS[i % TAGS.length];
  // Finished rows only: an unfinished one would be claimed by the pipeline while we measure.
  const final = status === 'queued' ? 'done' : status;
  const at = Date.UTC(2026, 0, 1) + i * 60_000;
  return [
    `bench${String(i).padStart(17, '0')}`,
    null,
    `Document ${i} about topic ${i % 97}.`,
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

async function seed(keelEnv) {
  if (keelEnv.databaseUrl) {
    const { Client } = require('pg');
    const client = new Client({ connectionString: keelEnv.databaseUrl });
    await client.connect();
    await client.query('BEGIN');
    for (let i = 0; i < DOCS; i += 1000) {
      const rows = Array.from({ length: Math.min(1000, DOCS - i) }, (_, k) => row(i + k));
      const params = rows.flat();
      const tuples = rows.map(
        (_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(', ')})`,
      );
      await client.query(
        `INSERT INTO memory_document (${columns.join(', ')}) VALUES ${tuples.join(', ')}`,
        params,
      );
    }
    await client.query('COMMIT');
    await client.end();
  } else {
    const Database = require('better-sqlite3');
    const db = new Database(join(keelEnv.dataDir, 'keel.sqlite'));
    const insert = db.prepare(
      `INSERT INTO memory_document (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    );
    db.transaction(() => {
      for (let i = 0; i < DOCS; i++) insert.run(row(i));
    })();
    db.close();
  }
}

async function timed(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

const median = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const p95 = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    95,
  );

const database = await freshDatabase();
// First start creates the schema; then the rows go in; the measured server starts on them.
const dataDir = mkdtempSync(join(tmpdir(), 'keel-bench-docs-'));
let keel = await startKeel({ databaseUrl: database.url, env: { KEEL_DATA_DIR: dataDir } });
await keel.stop().catch(() => undefined);
const seedMs = await timed(() => seed({ databaseUrl: database.url, dataDir }));
keel = await startKeel({ databaseUrl: database.url, env: { KEEL_DATA_DIR: dataDir } });

const list = async (body) => {
  const response = await fetch(`${keel.url}/v3/documents/list`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`list answered ${response.status}: ${await response.text()}`);
  return response.json();
};
const first = await list({ limit: 25 });
if (first.pagination.totalItems !== DOCS)
  throw new Error(`expected ${DOCS} documents, the list says ${first.pagination.totalItems}`);

console.log(
  `console-documents: ${DOCS} documents (${database.url ? 'PostgreSQL' : 'SQLite'}), seeded in ${(seedMs / 1000).toFixed(1)} s`,
);
console.log(machineLine());
console.log(`${new Date().toISOString()} · node bench/console-documents.mjs`);

const cases = [
  ['first page (25, newest first)', { limit: 25, page: 1 }],
  ['page 2', { limit: 25, page: 2 }],
  ['deep page 2000', { limit: 25, page: 2000 }],
  ['tag filter, page 1', { limit: 25, containerTags: ['user_2'] }],
  ['status failed, page 10', { limit: 25, statuses: ['failed'], page: 10 }],
  [
    'type webpage + date range',
    {
      limit: 25,
      types: ['webpage'],
      createdAfter: '2026-01-20T00:00:00Z',
      createdBefore: '2026-02-10T00:00:00Z',
    },
  ],
  ['sort updatedAt asc, page 100', { limit: 100, sort: 'updatedAt', order: 'asc', page: 100 }],
];
console.log('\nPOST /v3/documents/list (server round trip, ms)    median    p95');
for (const [name, body] of cases) {
  await list(body);
  const times = [];
  for (let i = 0; i < RUNS; i++) times.push(await timed(() => list(body)));
  console.log(
    `  ${name.padEnd(46)} ${median(times).toFixed(1).padStart(7)} ${p95(times).toFixed(1).padStart(7)}`,
  );
}

// The page in Chromium: first content (navigation to the first row shown) and a page change (click to new rows).
const { chromium } = require('playwright-core');
const browser = await chromium.launch({
  executablePath: process.env.KEEL_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
const firstContent = [];
const pageChange = [];
// Timed inside the page (performance.now() from navigation start, and from the click to the frame showing
// the new rows), so Playwright's own actionability checks and round trips are not counted.
const markFirstRow = () => {
  const observer = new MutationObserver(() => {
    if (document.querySelector('tbody tr[data-document-id]')) {
      window.__firstRow = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true });
};
for (let i = 0; i < Math.min(RUNS, 8); i++) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.addInitScript(markFirstRow);
  await page.goto(`${keel.url}/ui/memory/documents`);
  await page.locator('tbody tr').first().waitFor();
  firstContent.push(await page.evaluate(() => window.__firstRow));
  for (const target of [2, 3, 4]) {
    await page.getByRole('button', { name: `Page ${target}`, exact: true }).waitFor();
    pageChange.push(
      await page.evaluate(async (target) => {
        const before = document.querySelector('tbody tr')?.getAttribute('data-document-id');
        const button = document.querySelector(`button[aria-label="Page ${target}"]`);
        const started = performance.now();
        button.click();
        await new Promise((resolve) => {
          const check = () =>
            document.querySelector('tbody tr')?.getAttribute('data-document-id') !== before
              ? resolve()
              : requestAnimationFrame(check);
          check();
        });
        return performance.now() - started;
      }, target),
    );
  }
  await page.close();
}
await browser.close();
console.log('\nDocuments page in Chromium (ms)                    median    p95');
console.log(
  `  ${'first content (navigation start → first row)'.padEnd(46)} ${median(firstContent).toFixed(1).padStart(7)} ${p95(firstContent).toFixed(1).padStart(7)}`,
);
console.log(
  `  ${'page change (click → new rows on screen)'.padEnd(46)} ${median(pageChange).toFixed(1).padStart(7)} ${p95(pageChange).toFixed(1).padStart(7)}`,
);

await keel.stop();
rmSync(dataDir, { recursive: true, force: true });
await database.drop();
