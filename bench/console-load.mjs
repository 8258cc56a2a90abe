#!/usr/bin/env node
// Console cold load: the built Keel on loopback (bench/lib/keel-server.mjs), headless Chromium with
// an empty cache per run, time from navigation start to the first useful content of /ui/ (the
// overview's server health drawn with data), and the JavaScript the first page transferred (bytes on the
// wire, gzipped when the server compresses; also its gzip size whatever the server sends).
//   node bench/console-load.mjs [runs=10]
// Needs a build (bash scripts/build-to.sh) and Chromium ($KEEL_CHROMIUM or /usr/bin/chromium).
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { machineLine, percentile } from './lib/figures.mjs';
import { startKeel } from './lib/keel-server.mjs';

const RUNS = Number(process.argv[2] ?? 10);
const CHROMIUM = process.env.KEEL_CHROMIUM ?? '/usr/bin/chromium';

// Runs in the page before any of its scripts: notes when the overview first shows data (the server's
// health line, drawn from its answer).
function watchFirstUsefulContent() {
  const found = () =>
    [...document.querySelectorAll('h1')].some((h) => h.textContent === 'Overview') &&
    /Database \w+, migrations/.test(document.body.textContent);
  new MutationObserver((_, observer) => {
    if (window.__usefulAt === undefined && found()) {
      window.__usefulAt = performance.now();
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true, characterData: true });
}

const keel = await startKeel({ logLevel: 'error' });
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const times = [];
let transfer;
try {
  for (let run = 0; run < RUNS + 1; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(watchFirstUsefulContent);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const scripts = new Map();
    cdp.on('Network.responseReceived', (e) => {
      if (e.type === 'Script') scripts.set(e.requestId, { url: e.response.url, encoded: 0 });
    });
    cdp.on('Network.loadingFinished', (e) => {
      const script = scripts.get(e.requestId);
      if (script) script.encoded = e.encodedDataLength;
    });
    await page.goto(`${keel.url}/ui/`);
    await page.waitForFunction(() => window.__usefulAt !== undefined, null, { timeout: 30_000 });
    const usefulMs = await page.evaluate(() => window.__usefulAt);
    // The first run warms the server (its gzip cache, the first API answers); it is not counted.
    if (run > 0) times.push(usefulMs);
    if (run === 1) {
      // /global/event stays open, so the network is never idle: give late chunks a moment.
      await page.waitForTimeout(1000);
      let wire = 0;
      let gzipped = 0;
      let raw = 0;
      for (const { url, encoded } of scripts.values()) {
        const body = Buffer.from(await (await fetch(url)).arrayBuffer());
        wire += encoded;
        raw += body.length;
        gzipped += gzipSync(body, { level: 9 }).length;
      }
      transfer = { files: scripts.size, wire, gzipped, raw };
    }
    await context.close();
  }
} finally {
  await browser.close();
  await keel.stop();
}

const sorted = [...times].sort((a, b) => a - b);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
console.log(`console-load — ${new Date().toISOString()} — node bench/console-load.mjs ${RUNS}`);
console.log(machineLine());
console.log(
  `cold load of /ui/ to first useful content (the overview with the server's health): median ${percentile(sorted, 50).toFixed(0)} ms, ` +
    `p95 ${percentile(sorted, 95).toFixed(0)} ms, min ${sorted[0].toFixed(0)} ms (n=${sorted.length}; target < 500 ms)`,
);
console.log(
  `first page JavaScript: ${transfer.files} files, ${kb(transfer.wire)} transferred (incl. headers), ` +
    `${kb(transfer.gzipped)} gzipped, ${kb(transfer.raw)} uncompressed (target ≤ 250 KB gzipped)`,
);
