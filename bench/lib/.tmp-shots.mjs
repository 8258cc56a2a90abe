// scratch (not committed): screenshots of the routing pages
import { createServer } from 'node:http';
import { chromium } from 'playwright-core';
import { startKeel } from './keel-server.mjs';
const routers = {};
for (let i = 0; i < 30; i++) routers[`${i}-app-router`] = { rule: `Host(\`app${i}.example.com\`)`, service: `${i}-app-service`, entryPoints: ['websecure'], tls: { certResolver: 'le' } };
const server = createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ http: { routers } })); });
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const keel = await startKeel({ logLevel: 'error', env: { KEEL_MM_PANGOLIN_URL: `http://127.0.0.1:${server.address().port}`, KEEL_MM_CHECK_INTERVAL_SECONDS: '2' } });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const pages = (process.env.PAGES ?? 'routing,routing/resources,routing/resources/3-app-router,routing/middlewares,routing/middlewares/new,routing/services,routing/services/new,routing/datasources,routing/traefik-config').split(',');
await new Promise((r) => setTimeout(r, 3000));
for (const [w, h, scheme] of [[1280, 900, 'light'], [360, 800, 'dark']]) {
  const ctx = await browser.newContext({ viewport: { width: w, height: h }, colorScheme: scheme });
  const page = await ctx.newPage();
  page.on('console', (m) => m.type() === 'error' && console.log('console error', m.text()));
  page.on('pageerror', (e) => console.log('pageerror', e.message));
  for (const p of pages) {
    await page.goto(`${keel.url}/ui/${p}`);
    await page.waitForTimeout(1200);
    const file = `/tmp/rshots/${p.replace(/\//g, '_')}-${w}-${scheme}.png`;
    await page.screenshot({ path: file, fullPage: true });
    console.log(file);
  }
  await ctx.close();
}
await browser.close();
await keel.stop();
server.close();
