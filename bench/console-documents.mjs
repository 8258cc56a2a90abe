#!/usr/bin/env node
// Memory console on 100,000 documents with one chunk each (100,000 chunks): the list API (first page,
// a deep page, filtered pages), the search APIs (/v3/search, /v4/search hybrid) and, in Chromium:
// - the documents page reached inside the running console (a click on Memory's "Documents" in the navigation, and
//   the Search → Documents tab), to the first row on screen: what a person waits for;
// - the cold load of /ui/memory/documents (whole console app fetched and started), labelled as such;
// - a page change (click on the next page → new rows on screen);
// - the search playground: a click on a panel's Search → its results on screen.
//   node bench/console-documents.mjs                 (SQLite in a temp data dir; build first: npm run build)
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/console-documents.mjs
// Knobs: BENCH_DOCS (100000), BENCH_RUNS (15), BENCH_QUERIES (200).
// The documents and their chunks are written straight into the tables as finished documents, with the
// full-text index rows the pipeline would write (the pipeline is not what this measures:
// bench/memory-ingest.mjs is), then Keel is started on that data. No embedding provider: search is full text.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { machineLine, percentile } from './lib/figures.mjs';
import { freshDatabase, startKeel } from './lib/keel-server.mjs';
import { seedDocuments } from './lib/documents.mjs';
import { wordSource } from './lib/words.mjs';

const require = createRequire(import.meta.url);
const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
// Queries: Zipf-distributed words, as the seeded chunks are (bench/lib/documents.mjs).
const { rand, vocabulary: VOCAB } = wordSource(7);
const queryText = () =>
  Array.from({ length: 1 + Math.floor(rand() * 3) }, () => VOCAB[Math.floor(rand() * 2000)]).join(' ');

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
const seedMs = await timed(() => seedDocuments({ databaseUrl: database.url, dataDir }, DOCS));
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

// The search APIs on the 100,000 chunks: one query word to three, a new query each time.
const search = async (path, body) => {
  const response = await fetch(`${keel.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return response.json();
};
const searchCases = [
  ['/v3/search', (q) => ({ q, limit: 10 })],
  ['/v4/search', (q) => ({ q, limit: 10, searchMode: 'hybrid' })],
];
console.log(`\nSearch on ${DOCS} chunks (server round trip, ms)    median    p95   hits/query`);
for (const [path, body] of searchCases) {
  for (let i = 0; i < 5; i++) await search(path, body(queryText()));
  const times = [];
  let hits = 0;
  for (let i = 0; i < QUERIES; i++) {
    const q = body(queryText());
    times.push(
      await timed(async () => {
        hits += (await search(path, q)).results.length;
      }),
    );
  }
  console.log(
    `  ${(path + (path === '/v4/search' ? ' (hybrid)' : '')).padEnd(46)} ${median(times).toFixed(1).padStart(7)} ${p95(times).toFixed(1).padStart(7)} ${(hits / QUERIES).toFixed(1).padStart(8)}`,
  );
}

// In Chromium. Everything is timed inside the page (performance.now() from the click, or from navigation
// start, to the frame that shows the result), so Playwright's own checks and round trips are not counted.
const { chromium } = require('playwright-core');
const browser = await chromium.launch({
  executablePath: process.env.KEEL_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
// A failure below must not leave the server running.
process.on('uncaughtException', (error) => {
  console.error(error);
  void keel.stop().finally(() => process.exit(1));
});
const coldLoad = [];
const fromNavigation = [];
const fromTab = [];
const pageChange = [];
const searchV3 = [];
const searchV4 = [];
let waterfall = '';
const markFirstRow = () => {
  const observer = new MutationObserver(() => {
    if (document.querySelector('tbody tr[data-document-id]')) {
      window.__firstRow = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true });
};
/** Clicks the element, then resolves with the ms until a frame is painted where `done()` holds. */
const clickUntil = (selector, done) =>
  `(async () => {
    const target = document.querySelector(${JSON.stringify(selector)});
    const done = ${done};
    const started = performance.now();
    target.click();
    await new Promise((resolve, reject) => {
      const check = () => {
        if (performance.now() - started > 10000) reject(new Error('not done 10 s after the click on ${selector}'));
        else if (done()) requestAnimationFrame(() => resolve());
        else requestAnimationFrame(check);
      };
      check();
    });
    return performance.now() - started;
  })()`;
// What the browser fetched after the click: [name, start, end] relative to the click, to see waterfalls.
const resourcesSince = (since) =>
  performance
    .getEntriesByType('resource')
    .filter((e) => e.startTime >= since)
    .map(
      (e) =>
        `${e.name.replace(location.origin, '').slice(0, 48)} ${(e.startTime - since).toFixed(0)}→${(e.responseEnd - since).toFixed(0)}`,
    )
    .join('\n    ');

const onDocuments = `() => location.pathname.endsWith('/memory/documents') && !!document.querySelector('tbody tr[data-document-id]')`;
for (let i = 0; i < Math.min(RUNS, 8); i++) {
  // Fresh contexts: nothing of the console in the browser cache.
  const cold = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const coldPage = await cold.newPage();
  await coldPage.addInitScript(markFirstRow);
  // Cold: the whole console loaded for /ui/memory/documents.
  await coldPage.goto(`${keel.url}/ui/memory/documents`);
  await coldPage.locator('tbody tr').first().waitFor();
  coldLoad.push(await coldPage.evaluate(() => window.__firstRow));
  await cold.close();

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  // Inside the running console: from the routing dashboard, a click on Memory's "Documents" in the navigation.
  // The person has been on the dashboard a moment (2 s) before clicking.
  await page.goto(`${keel.url}/ui/routing`);
  await page.getByRole('heading').first().waitFor();
  await page.waitForTimeout(2000);
  const before = await page.evaluate(() => performance.now());
  fromNavigation.push(await page.evaluate(clickUntil('a[href="/ui/memory/documents"]', onDocuments)));
  if (i === 0) waterfall = await page.evaluate(`(${resourcesSince})(${before})`);

  // Page changes.
  for (const target of [2, 3, 4]) {
    await page.getByRole('button', { name: `Page ${target}`, exact: true }).waitFor();
    pageChange.push(
      await page.evaluate(
        clickUntil(
          `button[aria-label="Page ${target}"]`,
          `((before) => () => document.querySelector('tbody tr')?.getAttribute('data-document-id') !== before)(document.querySelector('tbody tr')?.getAttribute('data-document-id'))`,
        ),
      ),
    );
  }

  // Search playground: a panel's Search button → its results on screen.
  await page.getByRole('tab', { name: 'Search' }).click();
  await page.getByRole('combobox', { name: 'Search mode' }).click();
  await page.getByRole('option', { name: 'hybrid' }).click();
  for (let k = 0; k < 5; k++) {
    await page.getByRole('textbox', { name: 'Query', exact: true }).fill(queryText());
    for (const [version, times] of [
      ['v3', searchV3],
      ['v4', searchV4],
    ]) {
      await page
        .getByRole('button', { name: 'Search', exact: true })
        .nth(version === 'v3' ? 0 : 1)
        .evaluate((button, v) => button.setAttribute('data-bench-search', v), version);
      const ms = await page.evaluate(
        clickUntil(
          `button[data-bench-search="${version}"]`,
          // Busy (data-loading set) and then no longer: a MutationObserver sees the attribute come even
          // when the answer is back before the next frame.
          `((button) => {
            let seenBusy = false;
            new MutationObserver((records) => {
              if (records.some((r) => r.attributeName === 'data-loading' && r.oldValue === null)) seenBusy = true;
            }).observe(button, { attributes: true, attributeOldValue: true, attributeFilter: ['data-loading'] });
            return () => seenBusy && !button.hasAttribute('data-loading');
          })(document.querySelector('button[data-bench-search="${version}"]'))`,
        ),
      );
      if (k > 0) times.push(ms);
    }
  }

  // Inside the running console: Search tab → Documents tab (the memory code is loaded by now).
  fromTab.push(await page.evaluate(clickUntil('[role="tab"]:first-child', onDocuments)));
  await context.close();
}
await browser.close();
const line = (name, values) =>
  console.log(
    `  ${name.padEnd(58)} ${median(values).toFixed(1).padStart(7)} ${p95(values).toFixed(1).padStart(7)}`,
  );
console.log('\nMemory console in Chromium (ms)                                median    p95');
line('Memory › Documents in the navigation → first document row', fromNavigation);
line('Search tab → Documents tab, first row', fromTab);
line('page change (click → new rows on screen)', pageChange);
line('/v3/search panel: Search → results on screen', searchV3);
line('/v4/search panel (hybrid): Search → results on screen', searchV4);
line('cold load of /ui/memory/documents → first row (whole app)', coldLoad);
console.log(`\nRequests after the click on "Memory" (first run, ms from the click):\n    ${waterfall}`);

await keel.stop();
rmSync(dataDir, { recursive: true, force: true });
await database.drop();
