// Share page figures for Keel: a shared session of N messages (default 2,000; user messages stored
// with `noReply`, Markdown with code blocks), opened in Chromium without credentials:
//   - first contentful paint and the time until the first message is on screen (server-rendered HTML),
//   - the time until the live renderer has replaced it ("Live" badge),
//   - scrolling 300 steps of 0.8 viewport (two frames each) after that: long tasks over 50 ms (count, longest).
//
// Usage (after `bash scripts/build-to.sh`):
//   node bench/share-page.mjs [--messages 2000] [--runs 3]
// With DATABASE_URL=postgres://… the server uses a fresh database on that server.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineLine, numberOption } from './lib/figures.mjs';
import { freshDatabase, startKeel } from './lib/keel-server.mjs';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const argv = process.argv.slice(2);
const MESSAGES = numberOption(argv, 'messages', 2000);
const RUNS = numberOption(argv, 'runs', 3);

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'keel-bench-share-')));
const database = await freshDatabase();
const keel = await startKeel({ databaseUrl: database.url, allowedDirectories: tmpdir() });
const q = `directory=${encodeURIComponent(dir)}`;
const post = async (path, body) => {
  const response = await fetch(`${keel.url}${path}?${q}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
};

let browser;
try {
  const session = await post('/session', { title: 'Bench: a long shared session' });
  const seedStart = performance.now();
  for (let i = 0; i < MESSAGES; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, MESSAGES - i) }, (_, k) =>
        post(`/session/${session.id}/message`, {
          noReply: true,
          parts: [{ type: 'text', text: `Message ${i + k}: **why** does \`step ${i + k}\` fail?\n\n\`\`\`ts\nconst value = compute(${i + k});\nconsole.log(value);\n\`\`\`\n\n- one\n- two` }],
        }),
      ),
    );
  }
  const seedMs = performance.now() - seedStart;
  const { share } = await post(`/session/${session.id}/share`);
  const html = await (await fetch(share.url)).text();

  browser = await chromium.launch({ executablePath: process.env.KEEL_CHROMIUM ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  const rows = [];
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) window.__longTasks.push({ start: entry.startTime, duration: entry.duration });
      }).observe({ type: 'longtask', buffered: true });
    });
    const start = Date.now();
    await page.goto(share.url, { waitUntil: 'commit' });
    await page.locator('article, [data-message]').first().waitFor();
    const firstMessageMs = Date.now() - start;
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor({ timeout: 120_000 });
    const liveMs = Date.now() - start;
    const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN);
    const scrollFrom = await page.evaluate(() => performance.now());
    await page.evaluate(async () => {
      const step = window.innerHeight * 0.8;
      // 300 steps of 0.8 viewport (two frames each): about the first 300 messages' worth of page.
      for (let i = 0, y = 0; i < 300 && y < document.documentElement.scrollHeight; i++, y += step) {
        window.scrollTo(0, y);
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      }
    });
    const longTasks = await page.evaluate((from) => window.__longTasks.filter((t) => t.start >= from), scrollFrom);
    rows.push({
      fcp,
      firstMessageMs,
      liveMs,
      scrollLong: longTasks.filter((t) => t.duration > 50).length,
      scrollLongest: Math.max(0, ...longTasks.map((t) => t.duration)),
    });
    await context.close();
  }
  const median = (key) => rows.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(rows.length / 2)];
  console.log(`share page bench — ${new Date().toISOString()} — ${machineLine()}`);
  console.log(`database: ${database.url ? 'PostgreSQL' : 'SQLite'}; ${MESSAGES} messages seeded in ${(seedMs / 1000).toFixed(1)} s; server-rendered page ${(html.length / 1024 / 1024).toFixed(2)} MiB`);
  for (const [i, r] of rows.entries())
    console.log(
      `run ${i + 1}: first contentful paint ${r.fcp.toFixed(0)} ms, first message on screen ${r.firstMessageMs} ms, live renderer ready ${r.liveMs} ms, ` +
        `scrolling: ${r.scrollLong} long tasks > 50 ms (longest ${r.scrollLongest.toFixed(0)} ms)`,
    );
  console.log(`median: first contentful paint ${median('fcp').toFixed(0)} ms, first message ${median('firstMessageMs')} ms, live ${median('liveMs')} ms, long tasks while scrolling ${median('scrollLong')}`);
} finally {
  await browser?.close();
  await keel.stop();
  await database.drop?.();
  rmSync(dir, { recursive: true, force: true });
}
