#!/usr/bin/env node
// Console Resources page with N resources (default 5,000) synced from a fake Pangolin on loopback
// into the built Keel (bench/lib/keel-server.mjs), in headless Chromium:
// - render: navigation start → "N of N resources" with the first rows drawn (and the part after the
//   /api/resources answer arrived, i.e. the browser's own work);
// - filter latency per keystroke: a character typed into Search → the filtered count and rows
//   in the document (and to the next animation frame after it).
//   node bench/console-resources.mjs [resources=5000] [rounds=5]
import { createServer } from 'node:http';
import { chromium } from 'playwright-core';
import { machineLine, percentile } from './lib/figures.mjs';
import { startKeel } from './lib/keel-server.mjs';

const RESOURCES = Number(process.argv[2] ?? 5000);
const ROUNDS = Number(process.argv[3] ?? 5);
const CHROMIUM = process.env.KEEL_CHROMIUM ?? '/usr/bin/chromium';
const QUERY = 'app123';

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return `median ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, max ${sorted.at(-1).toFixed(1)} ms (n=${sorted.length})`;
}

const hosts = Array.from({ length: RESOURCES }, (_, i) => ({ id: `${i}-app-router`, host: `app${i}.example.com` }));
const routers = {};
for (const { id, host } of hosts) {
  routers[id] = { rule: `Host(\`${host}\`)`, service: id.replace('router', 'service'), entryPoints: ['websecure'], tls: { certResolver: 'letsencrypt' } };
}
const body = JSON.stringify({ http: { routers } });
const pangolin = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});
await new Promise((resolve) => pangolin.listen(0, '127.0.0.1', resolve));

// What the page's filter should show for a query (host or id contains it), to know when it is drawn.
const expectedCount = (query) => hosts.filter((r) => r.host.includes(query) || r.id.includes(query)).length;
// Type the query, then erase it: every prefix, both ways.
const steps = [];
for (let i = 1; i <= QUERY.length; i++) steps.push(QUERY.slice(0, i));
for (let i = QUERY.length - 1; i >= 0; i--) steps.push(QUERY.slice(0, i));
const plan = steps.map((value) => ({ value, count: value ? expectedCount(value) : RESOURCES }));

const keel = await startKeel({
  logLevel: 'error',
  env: { KEEL_MM_PANGOLIN_URL: `http://127.0.0.1:${pangolin.address().port}`, KEEL_MM_CHECK_INTERVAL_SECONDS: '3600' },
});
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const renders = [];
const afterData = [];
const commits = [];
const paints = [];
try {
  const started = Date.now();
  for (;;) {
    const list = await (await fetch(`${keel.url}/api/resources?status=active`)).json();
    if (list.length >= RESOURCES) break;
    if (Date.now() - started > 300_000) throw new Error(`only ${list.length} resources synced`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  for (let round = 0; round < ROUNDS + 1; round++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript((total) => {
      new MutationObserver((_, observer) => {
        if (document.body.textContent.includes(`${total} of ${total} resources`) && document.querySelector('[role="row"]')) {
          window.__renderedAt = performance.now();
          observer.disconnect();
        }
      }).observe(document, { childList: true, subtree: true, characterData: true });
    }, RESOURCES);
    await page.goto(`${keel.url}/ui/routing/resources`);
    await page.waitForFunction(() => window.__renderedAt !== undefined, null, { timeout: 60_000 });
    const { rendered, dataAt } = await page.evaluate(() => ({
      rendered: window.__renderedAt,
      dataAt: performance.getEntriesByType('resource').find((e) => e.name.endsWith('/api/resources'))?.responseEnd,
    }));
    const typed = await page.evaluate(async (plan) => {
      const input = document.querySelector('input[placeholder="Host or id"]');
      const status = [...document.querySelectorAll('p')].find((p) => / of \d+ resources$/.test(p.textContent));
      const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
      const out = [];
      for (const { value, count } of plan) {
        const start = performance.now();
        // Resolves when React has put the filtered count (and rows) in the document.
        const committed = new Promise((resolve) => {
          const observer = new MutationObserver(() => {
            if (status.textContent.startsWith(`${count} of `)) {
              observer.disconnect();
              resolve(performance.now());
            }
          });
          observer.observe(status, { childList: true, subtree: true, characterData: true });
        });
        setValue.call(input, value);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        const inDocument = status.textContent.startsWith(`${count} of `) ? performance.now() : await committed;
        const painted = await new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())));
        out.push({ commit: inDocument - start, paint: painted - start });
      }
      return out;
    }, plan);
    // The first round warms the server and the browser; it is not counted.
    if (round > 0) {
      renders.push(rendered);
      if (dataAt !== undefined) afterData.push(rendered - dataAt);
      commits.push(...typed.map((t) => t.commit));
      paints.push(...typed.map((t) => t.paint));
    }
    await context.close();
  }
} finally {
  await browser.close();
  await keel.stop();
  pangolin.close();
}

console.log(`console-resources — ${new Date().toISOString()} — node bench/console-resources.mjs ${RESOURCES} ${ROUNDS}`);
console.log(machineLine());
console.log(`Resources page with ${RESOURCES} resources, navigation → table drawn: ${stats(renders)}`);
console.log(`  of which after /api/resources answered (the browser's work): ${stats(afterData)}`);
console.log(`filter latency per keystroke ("${QUERY}" typed then erased), to the filtered rows in the document: ${stats(commits)} (target < 50 ms)`);
console.log(`  to the next frame (requestAnimationFrame after the change): ${stats(paints)}`);
