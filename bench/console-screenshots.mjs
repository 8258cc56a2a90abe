#!/usr/bin/env node
// Every console page on a fresh Keel (empty data dir, no password, one empty session in a temp project),
// screenshotted at 1440×900 light and 390×844 dark (`--narrow 360`: 360 wide) into the directory given, with per page: how far it is
// wider than the screen (clipping/overflow at 390 px), its cumulative layout shift while loading (jumps),
// and what it logged as errors. Look at the PNGs; the printed table only points at where to look.
//   node bench/console-screenshots.mjs <out-dir>        (build first: npm run build)
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { consolePages } from '../test/support/console-pages.mjs';
import { machineLine } from './lib/figures.mjs';
import { startKeel } from './lib/keel-server.mjs';

const OUT = process.argv[2];
if (!OUT) {
  console.error('usage: node bench/console-screenshots.mjs <out-dir>');
  process.exit(2);
}
mkdirSync(OUT, { recursive: true });
const CHROMIUM = process.env.KEEL_CHROMIUM ?? '/usr/bin/chromium';

// Runs before the page's scripts: sums layout shifts (as Lighthouse's CLS, without the session windows).
function watchLayoutShift() {
  window.__shift = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__shift += entry.value;
  }).observe({ type: 'layout-shift', buffered: true });
}

const project = mkdtempSync(join(tmpdir(), 'keel-screens-project-'));
const keel = await startKeel({ allowedDirectories: project, logLevel: 'error' });
const q = `directory=${encodeURIComponent(project)}`;
const created = await fetch(`${keel.url}/session?${q}`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ title: 'An empty session' }),
});
const session = await created.json();

const pages = consolePages({ q, sessionID: session.id });
// The narrow width in dark: 390 px (a phone) by default, `--narrow 360` for the smallest ones.
const narrowAt = process.argv.indexOf('--narrow');
const narrow = narrowAt > 0 ? Number(process.argv[narrowAt + 1]) : 390;
const modes = [
  ['1440-light', { width: 1440, height: 900 }, 'light'],
  [`${narrow}-dark`, { width: narrow, height: 844 }, 'dark'],
];

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const rows = [];
try {
  for (const [suffix, viewport, colorScheme] of modes) {
    const context = await browser.newContext({ viewport, colorScheme });
    for (const [name, path] of pages) {
      const page = await context.newPage();
      const errors = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${new URL(r.url()).pathname}`));
      await page.addInitScript(watchLayoutShift);
      await page.goto(keel.url + path);
      // Settled: no loader left, then a moment for late answers (the event stream keeps the network busy).
      await page
        .waitForFunction(() => !document.querySelector('[aria-label="Loading"], [aria-label^="Loading "]'), null, {
          timeout: 15_000,
        })
        .catch(() => errors.push('still loading after 15 s'));
      await page.waitForTimeout(700);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      const shift = await page.evaluate(() => window.__shift);
      await page.screenshot({ path: join(OUT, `${name}-${suffix}.png`), fullPage: true });
      rows.push({ page: `${name}-${suffix}`, overflow, shift: Number(shift.toFixed(3)), errors: errors.join(' | ') });
      await page.close();
    }
    await context.close();
  }
} finally {
  await browser.close();
  await keel.stop();
  rmSync(project, { recursive: true, force: true });
}

console.log(`console-screenshots — ${new Date().toISOString()} — node bench/console-screenshots.mjs ${OUT}`);
console.log(machineLine());
console.log('page'.padEnd(36), 'overflow px', 'layout shift', 'errors');
for (const r of rows) console.log(r.page.padEnd(36), String(r.overflow).padStart(11), String(r.shift).padStart(12), r.errors);
