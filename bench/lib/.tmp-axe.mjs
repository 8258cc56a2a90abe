import { chromium } from 'playwright-core';
import { createRequire } from 'node:module';
import { startKeel } from './keel-server.mjs';
const require = createRequire(import.meta.url);
const keel = await startKeel({ logLevel: 'error' });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox'] });
for (const scheme of ['light', 'dark']) {
  const ctx = await browser.newContext({ colorScheme: scheme });
  const page = await ctx.newPage();
  await page.goto(`${keel.url}/ui/${process.argv[2] ?? 'routing/middlewares/new'}`);
  await page.waitForTimeout(1500);
  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  const v = await page.evaluate(async () => (await axe.run(document)).violations.filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => ({ id: v.id, nodes: v.nodes.map(n => n.html.slice(0, 80) + ' ' + (n.any[0]?.message ?? '')) })));
  console.log(scheme, JSON.stringify(v, null, 1));
  await ctx.close();
}
await browser.close(); await keel.stop();
